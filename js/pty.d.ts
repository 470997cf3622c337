// spawnhost/pty: terminals with node-pty's API, created by the spawnhost helper.
import { EventEmitter } from "node:events";

export interface IDisposable {
  dispose(): void;
}

/** node-pty's event shape: subscribe with a listener, unsubscribe with the result's dispose(). */
export interface IEvent<T> {
  (listener: (event: T) => any): IDisposable;
}

export interface IPtyForkOptions {
  /** Sets TERM in the child's environment (default: env.TERM, else "xterm"). */
  name?: string;
  /** Columns, 1 to 65535 (default 80). */
  cols?: number;
  /** Rows, 1 to 65535 (default 24). */
  rows?: number;
  cwd?: string;
  /** The child's whole environment (default process.env); TERM comes from `name`. */
  env?: { [key: string]: string | undefined };
  /** How output is decoded (default "utf8"); null gives Buffers. */
  encoding?: BufferEncoding | null;
  uid?: number;
  gid?: number;
  /** Writes equal to flowControlPause / flowControlResume pause or resume output instead of reaching the child. */
  handleFlowControl?: boolean;
  /** Default "\x13" (XOFF). */
  flowControlPause?: string;
  /** Default "\x11" (XON). */
  flowControlResume?: string;
  /** node-pty's Windows options, accepted and ignored: on Windows the helper always uses ConPTY. */
  useConpty?: boolean;
  useConptyDll?: boolean;
  conptyInheritCursor?: boolean;
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
  on(event: "data", listener: (data: string | Buffer) => void): this;
  on(event: "exit", listener: (exitCode: number, signal: number) => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

export declare function spawn(file: string, args?: string[], options?: IPtyForkOptions): Terminal;
export declare const createTerminal: typeof spawn;
