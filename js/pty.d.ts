// spawnhost/pty: terminals with node-pty's API, created by the spawnhost helper.
import { EventEmitter } from "node:events";
import { Socket } from "node:net";
import { ReadStream } from "node:tty";

export interface IDisposable {
  dispose(): void;
}

/** node-pty's event shape: subscribe with a listener, unsubscribe with the result's dispose(). */
export interface IEvent<T> {
  (listener: (event: T) => any): IDisposable;
}

/** The options node-pty's terminals share (node-pty's IBasePtyForkOptions). */
export interface IBasePtyForkOptions {
  /** Sets TERM in the child's environment (default: env.TERM, else "xterm"; Windows: not set). */
  name?: string;
  /** Columns (default 80); brought into 1 to 65535 (Windows 32767). */
  cols?: number;
  /** Rows (default 24); brought into 1 to 65535 (Windows 32767). */
  rows?: number;
  /** Default process.cwd(). */
  cwd?: string;
  /** The child's whole environment (default process.env, less TMUX, STY, COLUMNS...); TERM comes from `name`, PWD from `cwd`. */
  env?: { [key: string]: string | undefined };
  /** How output is decoded (default "utf8"); null gives Buffers. */
  encoding?: string | null;
  /** Writes equal to flowControlPause / flowControlResume pause or resume output instead of reaching the child. */
  handleFlowControl?: boolean;
  /** Default "\x13" (XOFF). */
  flowControlPause?: string;
  /** Default "\x11" (XON). */
  flowControlResume?: string;
}

export interface IPtyForkOptions extends IBasePtyForkOptions {
  uid?: number;
  gid?: number;
}

export interface IWindowsPtyForkOptions extends IBasePtyForkOptions {
  /** Accepted and ignored: spawnhost's Windows terminals are always the system's ConPTY. */
  useConpty?: boolean;
  /** Accepted and ignored. */
  useConptyDll?: boolean;
  /** Accepted and ignored. */
  conptyInheritCursor?: boolean;
}

/** open()'s options (node-pty's IPtyOpenOptions). */
export interface IPtyOpenOptions {
  cols?: number;
  rows?: number;
  encoding?: string | null;
}

export interface IExitEvent {
  exitCode: number;
  /** The number of the signal that ended the child, 0 when it exited. */
  signal: number;
}

export interface IPty {
  readonly pid: number;
  readonly cols: number;
  readonly rows: number;
  /** The terminal's foreground process name (Linux; elsewhere the file started). */
  readonly process: string;
  handleFlowControl: boolean;
  readonly onData: IEvent<string>;
  readonly onExit: IEvent<IExitEvent>;
  write(data: string | Buffer): void;
  resize(columns: number, rows: number): void;
  clear(): void;
  kill(signal?: NodeJS.Signals | string): void;
  pause(): void;
  resume(): void;
  destroy(): void;
}

export declare class Terminal extends EventEmitter implements IPty {
  readonly pid: number;
  cols: number;
  rows: number;
  readonly process: string;
  handleFlowControl: boolean;
  onData(listener: (data: string) => any): IDisposable;
  onData(listener: (data: Buffer) => any): IDisposable;
  onExit(listener: (event: IExitEvent) => any): IDisposable;
  write(data: string | Buffer): void;
  resize(columns: number, rows: number): void;
  clear(): void;
  kill(signal?: NodeJS.Signals | string): void;
  pause(): void;
  resume(): void;
  /** Closes the terminal, then sends its child SIGHUP; the exit still comes. */
  destroy(): void;
  on(event: "data", listener: (data: string | Buffer) => void): this;
  on(event: "exit", listener: (exitCode: number, signal: number) => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

/**
 * A terminal pair with no process (node-pty's open()): both ends for the caller. A
 * terminal's members, with pid -1, no exit ever, and kill() doing nothing.
 */
export interface TerminalPair extends Terminal {
  /** What a terminal window reads and types into. */
  readonly master: Socket;
  /** What a program would have as its stdio. */
  readonly slave: ReadStream;
  /** The slave's path, e.g. /dev/pts/3. */
  readonly ptsName: string;
  /** The master's descriptor. */
  readonly fd: number;
}

/** Starts `file` (default sh; Windows: COMSPEC, else cmd.exe) on a new terminal; a string `args` is a Windows command line. */
export declare function spawn(file?: string, args?: string[] | string, options?: IPtyForkOptions | IWindowsPtyForkOptions): Terminal;
/** node-pty's deprecated names for spawn. */
export declare const createTerminal: typeof spawn;
export declare const fork: typeof spawn;
/** Opens a terminal pair with no process (Linux; not on Windows, as node-pty). */
export declare function open(options?: IPtyOpenOptions): TerminalPair;
