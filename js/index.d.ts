// Hand-written types for spawnhost. Keep in step with js/src; tests/js/types/ uses
// every export and is type-checked by tests/js/types.test.js.
/// <reference types="node" />
import { EventEmitter } from "node:events";
import type { Readable, Writable } from "node:stream";

/** A signal name such as "SIGTERM", or its number. */
export type SignalLike = NodeJS.Signals | number;

/** What onLaunch receives once per process the host created. */
export interface LaunchInfo {
  /** "exec" for execFile/exec, "spawn" for spawn. */
  kind: "exec" | "spawn";
  /** The program that was started (the shell, when `shell` was used). */
  file: string;
  /** Milliseconds inside the operating system's process-creation call. */
  createMs: number;
  /** Milliseconds the request waited for a free launch thread (0 inline). */
  queuedMs: number;
}

/** Options of `new ProcessHost()`. */
export interface ProcessHostOptions {
  /** "helper" (default): a native helper creates processes; "inline": node:child_process in this thread. */
  mode?: "helper" | "inline";
  /** How many launches the helper runs at once (its launch thread pool). */
  maxLaunchThreads?: number;
  /** Called once per created process with how long creating it took. */
  onLaunch?: (launch: LaunchInfo) => void;
  /** Receives `error` events of children that nothing listens to. Default: a process warning. */
  onUnhandledChildError?: (error: Error, pid: number | undefined) => void;
  /** Start a new helper on the next call after one went away. Default true. */
  restart?: boolean;
  /** How long a child the helper ends gets after its killSignal before SIGKILL: when the host ends (Node exits or dies, a worker ends, shutdown()) and after a timeout or maxBuffer kill. Default 5000. */
  killGraceMs?: number;
  /** How long the helper may owe an answer (its hello, a liveness check, its end after shutdown's grace) before it counts as hung and is killed. Default 10000. */
  helperTimeoutMs?: number;
  /**
   * Re-read process.env for a launch without `env` only after JavaScript wrote to it
   * (process.env becomes a transparent Proxy that counts writes). Changes made outside
   * JavaScript (a native addon's setenv, a SHARE_ENV worker) are then not seen. Default
   * false: process.env is read at every launch.
   */
  trackEnv?: boolean;
  /** The helper executable. Default: SPAWNHOST_HELPER_PATH, then the platform package, then the repository's build. */
  helperPath?: string;
  /**
   * When no helper is found, or the one found cannot start (it exits, crashes, cannot be
   * executed, or sends no hello within helperTimeoutMs), and none was named by helperPath
   * or SPAWNHOST_HELPER_PATH: "inline" (default) runs inline and warns once per process
   * (per broken helper); "error" makes calls reject with a HelperNotFoundError, or the
   * helper's own error.
   */
  fallback?: "inline" | "error";
  /**
   * The platform the helper runs on, when it is not this process's: "win32" for the
   * Windows helper run through wine from Linux (its test suite). Shell commands
   * (cmd.exe /d /s /c), the default cwd (the helper's own) and fork (unsupported on
   * Windows) follow it. Helper mode only. Default: process.platform.
   */
  helperPlatform?: "linux" | "win32";
  /**
   * Reach a helper on another machine through a command's stdin/stdout (ssh, docker/
   * podman/kubectl exec -i) instead of starting one here. Helper mode only. Remote
   * semantics (default env and cwd are the remote helper's; "inherit" is a TypeError;
   * fork needs the remote's execPath and an explicit env; blocking calls throw): docs/remote.md.
   */
  transport?: TransportOptions;
}

/** ProcessHostOptions#transport. */
export interface TransportOptions {
  /** The local command, e.g. "ssh". */
  command: string;
  /** Its arguments up to and including the host, e.g. ["-T", "-o", "BatchMode=yes", "build-2"]. */
  args?: readonly string[];
  /** How it takes the remote command: "shell" (ssh: one string for the remote login shell) or "argv" (exec -i tools). Default: "shell" for ssh, else "argv". */
  remoteCommand?: "shell" | "argv";
  /** Run the POSIX-sh bootstrap, which uploads the static helper into the remote cache when absent (default true). False: `args` start the helper themselves. */
  bootstrap?: boolean;
  /** The remote cache directory. Default: ${XDG_CACHE_HOME:-$HOME/.cache}/spawnhost. */
  cacheDir?: string;
  /** Local helpers the bootstrap may upload, by remote platform ("linux-x64", "linux-arm64"). Default: the installed platform packages, and this machine's own helper. */
  helpers?: Readonly<Record<string, string>>;
  /** A name for error messages. Default: the command and its arguments. */
  name?: string;
}

/** What ProcessHost#info() resolves with. */
export interface HostInfo {
  mode: "helper" | "inline";
  /** Node's names ("linux", "x64"); across a transport, from the remote's uname; null when unknown (no bootstrap). */
  os: string | null;
  arch: string | null;
  /** The remote's `uname -s` and `uname -m`, across a transport with bootstrap. */
  uname: string | null;
  /** "local", "cached" or "uploaded" (the bootstrap's), "as started" (no bootstrap) or "none" (inline). */
  helper: string;
  helperPid: number;
  /** Describes the transport; null for a local helper. */
  transport: string | null;
  /** The transport command's pid (ssh), 0 for a local helper. */
  transportPid: number;
}

/** Options shared by execFile, exec and spawn. */
export interface CommonOptions {
  /** Working directory of the child. Default: the current directory at call time. */
  cwd?: string | URL | Buffer;
  /** Complete environment of the child. Default: process.env as it is at call time. */
  env?: NodeJS.ProcessEnv;
  /** Kill the child after this many milliseconds (0: never). */
  timeout?: number;
  /** Signal sent on timeout, maxBuffer and abort. Default "SIGTERM". */
  killSignal?: SignalLike;
  /** Aborting kills the child; the call rejects (or the child emits) an AbortError. */
  signal?: AbortSignal;
  /** Run through a shell: true for /bin/sh, or the shell's path. */
  shell?: boolean | string;
  /** User id to run the child as. */
  uid?: number;
  /** Group id to run the child as. */
  gid?: number;
  /** Windows only; accepted everywhere. */
  windowsHide?: boolean;
  /** Windows only; accepted everywhere. */
  windowsVerbatimArguments?: boolean;
}

/** Options of execFile and exec. */
export interface ExecOptions extends CommonOptions {
  /** Largest stdout or stderr in bytes; past it the child is killed. Default 1024 * 1024. */
  maxBuffer?: number;
  /** Text encoding of stdout/stderr, or "buffer" for Buffers. Default "utf8". */
  encoding?: BufferEncoding | "buffer" | null;
  /** Written to the child's stdin, which is then closed. */
  input?: string | NodeJS.ArrayBufferView;
  /** "stdout-json": resolve as soon as stdout holds one complete JSON value, then kill the child. */
  completeWhen?: "stdout-json";
}

/** ExecOptions whose encoding gives Buffers. */
export interface ExecOptionsWithBufferEncoding extends ExecOptions {
  encoding: "buffer" | null;
}

/** One stdio entry: a pipe, /dev/null, or this process's own descriptor. */
export type StdioEntry = "pipe" | "ignore" | "inherit" | 0 | 1 | 2 | null | undefined;

/** Options of spawn. */
export interface SpawnOptions extends CommonOptions {
  /** argv[0] given to the program. Default: the file. */
  argv0?: string;
  /** Run the child in its own session; it is not ended with the host. */
  detached?: boolean;
  /** Stdio of fds 0, 1, 2, and "ipc" fourth for an IPC channel on fd 3. Default "pipe". */
  stdio?: "pipe" | "ignore" | "inherit" | [StdioEntry?, StdioEntry?, StdioEntry?] | [StdioEntry, StdioEntry, StdioEntry, "ipc"];
  /** How IPC messages are encoded: "json" (default) or "advanced" (the structured clone algorithm). */
  serialization?: Serialization;
}

/** How IPC messages are encoded, as child_process names it. */
export type Serialization = "json" | "advanced";

/** Options of fork. */
export interface ForkOptions extends Omit<SpawnOptions, "shell" | "stdio"> {
  /** The Node.js executable. Default: process.execPath. */
  execPath?: string;
  /** Node.js options placed before the module path. Default: process.execArgv. */
  execArgv?: string[];
  /** Pipe stdin, stdout and stderr (true) instead of inheriting them. Ignored with stdio. */
  silent?: boolean;
  /** A string gains "ipc" as a fourth entry; an array must hold "ipc" at index 3. */
  stdio?: "pipe" | "ignore" | "inherit" | [StdioEntry, StdioEntry, StdioEntry, "ipc"];
}

/** A value send() accepts: JSON's, or with "advanced" serialization any structured-cloneable value. */
export type IpcMessage = string | number | boolean | object | null;

/** What execFile and exec resolve with. */
export interface ExecResult<T extends string | Buffer = string> {
  stdout: T;
  stderr: T;
}

/** A child process started by ProcessHost#spawn, shaped like node:child_process's ChildProcess. */
export class HostChild extends EventEmitter {
  /** The process id; undefined when the process could not be created. */
  readonly pid: number | undefined;
  /** The child's stdin, when piped. */
  readonly stdin: Writable | null;
  /** The child's stdout, when piped. */
  readonly stdout: Readable | null;
  /** The child's stderr, when piped. */
  readonly stderr: Readable | null;
  /** [stdin, stdout, stderr]. */
  readonly stdio: [Writable | null, Readable | null, Readable | null];
  /** Exit code once exited normally; negative errno when it could not be created. */
  readonly exitCode: number | null;
  /** The signal that ended the child, once exited. */
  readonly signalCode: NodeJS.Signals | null;
  /** Whether kill() delivered a signal (or a timeout did). */
  readonly killed: boolean;
  /** The program that was started. */
  readonly spawnfile: string;
  /** The full argv, argv[0] first. */
  readonly spawnargs: string[];
  /** Whether send() can reach the child: it has an IPC channel, not yet disconnected. */
  readonly connected: boolean;
  /** Sends a signal (default SIGTERM); true when it was sent. */
  kill(signal?: SignalLike): boolean;
  /**
   * Sends a message over the IPC channel; false asks the caller to wait (for the callback)
   * before sending more. The callback runs once it was written to the channel. Throws
   * for a message the serialization cannot represent. Handles cannot be sent.
   */
  send(message: IpcMessage, callback?: (error: Error | null) => void): boolean;
  send(message: IpcMessage, handle: undefined | null, callback?: (error: Error | null) => void): boolean;
  send(message: IpcMessage, handle: undefined | null, options: object | undefined, callback?: (error: Error | null) => void): boolean;
  /** Closes the IPC channel after what was sent; emits "disconnect". */
  disconnect(): void;
  /** Lets this child keep Node alive until it closes (the default). */
  ref(): void;
  /** Stops this child from keeping Node alive. */
  unref(): void;

  on(event: "spawn", listener: () => void): this;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: "close", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: "message", listener: (message: any, handle: undefined) => void): this;
  on(event: "disconnect", listener: () => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
  once(event: "spawn", listener: () => void): this;
  once(event: "error", listener: (error: Error) => void): this;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: "close", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: "message", listener: (message: any, handle: undefined) => void): this;
  once(event: "disconnect", listener: () => void): this;
  once(event: string | symbol, listener: (...args: any[]) => void): this;
}

/** Starts child processes without blocking the event loop. */
export class ProcessHost {
  constructor(options?: ProcessHostOptions);
  /** "helper" or "inline". */
  readonly mode: "helper" | "inline";
  /** Runs a program to completion, like promisified child_process.execFile. */
  execFile(file: string, args: readonly string[] | null | undefined, options: ExecOptionsWithBufferEncoding): Promise<ExecResult<Buffer>>;
  execFile(file: string, options: ExecOptionsWithBufferEncoding): Promise<ExecResult<Buffer>>;
  execFile(file: string, args?: readonly string[] | null, options?: ExecOptions): Promise<ExecResult<string>>;
  execFile(file: string, options: ExecOptions): Promise<ExecResult<string>>;
  /** Runs a shell command to completion, like promisified child_process.exec. */
  exec(command: string, options: ExecOptionsWithBufferEncoding): Promise<ExecResult<Buffer>>;
  exec(command: string, options?: ExecOptions): Promise<ExecResult<string>>;
  /** Starts a long-lived child; resolves once the process exists (or failed to). */
  spawn(file: string, args?: readonly string[] | null, options?: SpawnOptions): Promise<HostChild>;
  spawn(file: string, options: SpawnOptions): Promise<HostChild>;
  /** Starts a Node.js module with an IPC channel, like child_process.fork. */
  fork(modulePath: string | URL, args?: readonly string[] | null, options?: ForkOptions): Promise<HostChild>;
  fork(modulePath: string | URL, options: ForkOptions): Promise<HostChild>;
  /** Deletes a file or directory tree; missing is fine, links are not followed. */
  removeTree(path: string): Promise<void>;
  /** Stops the helper; pending calls reject with HostShutdownError. */
  shutdown(): Promise<void>;
  /** Where launches run (starts the helper if none runs): OS and architecture, across a transport the remote's. */
  info(): Promise<HostInfo>;
  /** What the host is doing now: the helper's pid (0 when none runs, and in inline mode) and how many calls and children it still owes answers. */
  stats(): HostStats;
}

/** Options of `new HostPool()`. */
export interface HostPoolOptions {
  /** The only strategy: each launch goes to the up host with the fewest launches in flight. */
  strategy?: "least-busy";
  /** Launches in flight per host before the pool queues further ones. Default 32. */
  maxPerHost?: number;
}

/** `host` pins a launch to one host of the pool: the ProcessHost itself or its index. */
export interface PoolPin {
  host?: ProcessHost | number;
}

/**
 * Several ProcessHosts behind one launch API. A host whose helper went away is skipped
 * until it reconnects; launches that reached no helper move to another host, none runs twice.
 */
export class HostPool {
  constructor(hosts: readonly ProcessHost[], options?: HostPoolOptions);
  execFile(file: string, args: readonly string[] | null | undefined, options: ExecOptionsWithBufferEncoding & PoolPin): Promise<ExecResult<Buffer>>;
  execFile(file: string, args?: readonly string[] | null, options?: ExecOptions & PoolPin): Promise<ExecResult<string>>;
  execFile(file: string, options: ExecOptions & PoolPin): Promise<ExecResult<string>>;
  exec(command: string, options?: ExecOptions & PoolPin): Promise<ExecResult<string>>;
  spawn(file: string, args?: readonly string[] | null, options?: SpawnOptions & PoolPin): Promise<HostChild>;
  spawn(file: string, options: SpawnOptions & PoolPin): Promise<HostChild>;
  /** Per host: launches in flight, and the error that took it out (null while up). */
  stats(): { host: ProcessHost; inFlight: number; down: Error | null }[];
  /** Ends every host; launches still queued reject with HostShutdownError. */
  shutdown(): Promise<void>;
}

/** What ProcessHost#stats() returns. */
export interface HostStats {
  mode: "helper" | "inline";
  helperPid: number;
  inFlight: number;
}

/** Base class of every error spawnhost creates. */
export class SpawnhostError extends Error {}

/** execFile/exec failed; fields as on Node's execFile error, plus timedOut. */
export class HostExecError extends SpawnhostError {
  /** Exit code, an errno name ("ENOENT"), or "ERR_CHILD_PROCESS_STDIO_MAXBUFFER". */
  code?: number | string | null;
  /** The signal that ended the child. */
  signal?: NodeJS.Signals | null;
  /** Whether the host killed the child (timeout, maxBuffer, abort). */
  killed?: boolean;
  /** The command: file and args joined by spaces, or exec's command. */
  cmd?: string;
  /** Output gathered before the failure. */
  stdout?: string | Buffer;
  /** Output gathered before the failure. */
  stderr?: string | Buffer;
  /** Whether the timeout ended the command. */
  timedOut?: boolean;
  /** Negative errno, when the process could not be created. */
  errno?: number;
  /** "spawn <file>" or "spawn", when the process could not be created. */
  syscall?: string;
  /** The program, when it could not be found or run. */
  path?: string;
  /** The arguments, when the program could not be found or run. */
  spawnargs?: string[];
}

/** An errno-style error: spawn ENOENT, write EPIPE, a failed removeTree. */
export class HostSpawnError extends SpawnhostError {
  errno?: number;
  code?: string;
  syscall?: string;
  path?: string;
  spawnargs?: string[];
}

/** The helper ended or broke its pipe; says how and quotes its stderr. */
export class HelperExitedError extends SpawnhostError {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The helper's path, or "over the transport \"...\"" for a remote host. */
  helperPath: string;
  /** False when the helper never said hello: nothing was sent to it, so a launch may be retried elsewhere. */
  helperStarted?: boolean;
}

/** The helper's protocol or package version differs from this package's. */
export class HelperVersionError extends SpawnhostError {}

/** No helper executable was found; the message says where it looked. */
export class HelperNotFoundError extends SpawnhostError {}

/** The host was shut down before the call completed. */
export class HostShutdownError extends SpawnhostError {}

/** A frame broke the wire protocol. */
export class ProtocolError extends SpawnhostError {
  /** oversized, truncated, not_msgpack, not_array, unknown_message, wrong_size, bad_field, bad_option. */
  category: string;
}

/** Node's AbortError: code "ABORT_ERR", cause = the signal's reason. */
export class AbortError extends Error {
  code: "ABORT_ERR";
}
