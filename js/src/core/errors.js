// Every error spawnhost creates is built here, in one voice. Errors that stand for a
// child_process error copy its message and fields exactly (lib/child_process.js,
// lib/internal/errors.js), so code written for child_process keeps working.
import { getSystemErrorMap, inspect } from "node:util";

const ERRNO_BY_NAME = new Map([...getSystemErrorMap()].map(([errno, [name]]) => [name, errno]));

/** Node's (negative) errno for an error code name such as "ENOENT"; undefined if unknown. */
export function errnoOf(codeName) {
  return ERRNO_BY_NAME.get(codeName);
}

/** Base class of every error spawnhost throws or rejects with. */
export class SpawnhostError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A command run by execFile/exec failed. Carries the fields of the error Node's
 * promisified execFile rejects with (only those Node sets for that kind of failure:
 * `code`, `killed`, `signal`, `cmd`, `stdout`, `stderr`, and for a process that could
 * not be created `errno`, `syscall`, `path`, `spawnargs`), plus `timedOut`.
 */
export class HostExecError extends SpawnhostError {}

/**
 * A child could not be created, signalled or written to: the errno-style error that
 * child_process emits (`spawn ls ENOENT`, `write EPIPE`), with `errno`, `code`, `syscall`.
 */
export class HostSpawnError extends SpawnhostError {}

/** The helper process ended or broke its pipe; every pending call rejects with this. */
export class HelperExitedError extends SpawnhostError {}

/** The helper speaks another protocol or belongs to another package version. */
export class HelperVersionError extends SpawnhostError {}

/**
 * The helper's hello names another protocol or package version than this package's.
 * @param {string} helperPath
 * @param {{ protocol: unknown, version: unknown }} spoken what the hello said
 * @param {{ protocol: number, version: string }} needed this package's
 */
export function helperVersionMismatch(helperPath, spoken, needed) {
  return new HelperVersionError(
    `spawnhost helper ${helperPath} speaks protocol ${spoken.protocol} of version ${spoken.version}, ` +
    `but this package (spawnhost ${needed.version}) needs protocol ${needed.protocol} of version ${needed.version}; ` +
    "install the helper that belongs to this package version",
  );
}

/** No helper executable was found for this platform. */
export class HelperNotFoundError extends SpawnhostError {}

/** The host was shut down before the call could complete. */
export class HostShutdownError extends SpawnhostError {}

/** A frame broke the wire protocol; `category` names the rule (schema/vectors.json). */
export class ProtocolError extends SpawnhostError {
  constructor(category, message) {
    super(message);
    this.category = category;
  }
}

/** Node's AbortError: name "AbortError", code "ABORT_ERR", `cause` = the signal's reason. */
export class AbortError extends Error {
  constructor(cause) {
    super("The operation was aborted", { cause });
    this.code = "ABORT_ERR";
    this.name = "AbortError";
  }
}

// libuv reports these launch failures through an `error` event on the child; any other
// failure makes child_process.spawn() throw (lib/internal/child_process.js). We keep
// the same split so that callers see the same thing in both modes.
const EMITTED_SPAWN_FAILURES = new Set(["EACCES", "EAGAIN", "EMFILE", "ENFILE", "ENOENT"]);

/** The step of a launch that failed, on a spawnFailure error: "exec", "chdir", "setuid"... (the helper's stage). */
export const LAUNCH_STAGE = Symbol("spawnhost.launchStage");

/**
 * The error child_process produces when a process cannot be created.
 * @param {string} code errno name, e.g. "ENOENT"
 * @param {string} spawnfile
 * @param {string[]} spawnargs the full argv, argv0 first
 * @param {string} [stage] the helper's stage of the failure
 * @returns {{ error: HostSpawnError, emitted: boolean }} emitted: reported through the
 *   child's `error` event (true) or thrown by spawn() itself (false).
 */
export function spawnFailure(code, spawnfile, spawnargs, stage) {
  const emitted = EMITTED_SPAWN_FAILURES.has(code);
  const syscall = emitted ? `spawn ${spawnfile}` : "spawn";
  const error = errnoError(code, syscall);
  // Not a field of Node's errors: hidden from enumeration, for spawnhost/pty's message.
  Object.defineProperty(error, LAUNCH_STAGE, { value: stage });
  if (emitted) {
    error.path = spawnfile;
    error.spawnargs = spawnargs.slice(1);
  }
  return { error, emitted };
}

/** An errno-style error like Node's ErrnoException: message "<syscall> <code>". */
export function errnoError(code, syscall) {
  const error = new HostSpawnError(`${syscall} ${code}`);
  error.errno = errnoOf(code);
  error.code = code;
  error.syscall = syscall;
  return error;
}

/** The command string Node puts in `cmd` and in "Command failed" messages. */
export function commandLine(file, args) {
  return args.length > 0 ? `${file} ${args.join(" ")}` : file;
}

/** "Command failed: <cmd>\n<stderr>", with the exit code or signal as fields. */
export function commandFailed({ cmd, code, signal, killed, stderr }) {
  const error = new HostExecError(`Command failed: ${cmd}\n${stderr}`);
  error.code = code;
  error.killed = killed;
  error.signal = signal;
  return error;
}

/** Node's ERR_CHILD_PROCESS_STDIO_MAXBUFFER. */
export function maxBufferExceeded(streamName) {
  const error = new HostExecError(`${streamName} maxBuffer length exceeded`);
  error.code = "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";
  return error;
}

/** Turns a spawn failure into what promisified execFile rejects with: same fields. */
export function asExecError(spawnError) {
  // Only errno-style errors (from us or from child_process in inline mode) become
  // HostExecErrors; AbortError and errors about the helper itself keep their class.
  if (spawnError instanceof HostExecError || typeof spawnError?.syscall !== "string") return spawnError;
  const error = new HostExecError(spawnError.message);
  Object.assign(error, spawnError);
  error.name = "HostExecError";
  return error;
}

/**
 * The helper went away. Names how it ended and quotes the end of its stderr, which is
 * where it explains itself.
 */
export function helperExited({ helperPath, reason, exitCode, signal, hung = false, stderrTail }) {
  const how = hung ? "stopped answering and was killed"
    : signal ? `was killed by ${signal}` : exitCode != null ? `exited with code ${exitCode}` : "ended";
  let message = `spawnhost helper ${helperPath} ${how} (${reason})`;
  if (stderrTail) message += `; its stderr ended with:\n${stderrTail}`;
  const error = new HelperExitedError(message);
  error.exitCode = exitCode ?? null;
  error.signal = signal ?? null;
  error.helperPath = helperPath;
  return error;
}

/** Thrown for an option that fails validation: names option, value and expectation. */
export function invalidOption(name, value, expected, code = "ERR_INVALID_ARG_TYPE") {
  const error = new TypeError(`The "${name}" option must be ${expected}; received ${describe(value)}`);
  error.code = code;
  return error;
}

/** Like Node's ERR_INVALID_ARG_VALUE for strings holding NUL bytes. */
export function nulByteInOption(name, value) {
  const error = new TypeError(`The argument '${name}' must be a string without null bytes. Received ${describe(value)}`);
  error.code = "ERR_INVALID_ARG_VALUE";
  return error;
}

function describe(value) {
  if (value === null) return "null";
  if (typeof value === "function") return `function ${value.name || "(anonymous)"}`;
  if (typeof value === "object") return Array.isArray(value) ? `an array (${shorten(JSON.stringify(value))})` : `an object (${shorten(safeJson(value))})`;
  if (typeof value === "string") return `${shorten(JSON.stringify(value))} (string)`;
  return `${String(value)} (${typeof value})`;
}

function safeJson(value) {
  try { return JSON.stringify(value); } catch { return Object.prototype.toString.call(value); }
}

function shorten(text) {
  return text && text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** An fs-style error ("EACCES: permission denied, rmdir '/x'") for removeTree. */
export function fsError(code, syscall, path) {
  const description = getSystemErrorMap().get(errnoOf(code))?.[1] ?? "unknown error";
  const error = new HostSpawnError(`${code}: ${description}, ${syscall} '${path}'`);
  error.errno = errnoOf(code);
  error.code = code;
  error.syscall = syscall;
  error.path = path;
  return error;
}

/** A Node-style error with a code, for the IPC errors child_process raises. */
function codedError(ErrorClass, code, message) {
  const error = new ErrorClass(message);
  error.code = code;
  return error;
}

/** Node's ERR_IPC_CHANNEL_CLOSED: send() on a channel that is closed or was never open. */
export const ipcChannelClosed = () => codedError(Error, "ERR_IPC_CHANNEL_CLOSED", "Channel closed");

/** Node's ERR_IPC_DISCONNECTED: disconnect() on a channel already disconnected. */
export const ipcDisconnected = () => codedError(Error, "ERR_IPC_DISCONNECTED", "IPC channel is already disconnected");

/** Node's ERR_IPC_ONE_PIPE: more than one "ipc" in stdio. */
export const ipcOnePipe = () => codedError(Error, "ERR_IPC_ONE_PIPE", "Child process can have only one IPC pipe");

/** Node's ERR_CHILD_PROCESS_IPC_REQUIRED: fork() with a stdio array that has no "ipc". */
export const ipcRequired = () => codedError(Error, "ERR_CHILD_PROCESS_IPC_REQUIRED", "Forked processes must have an IPC channel, missing value 'ipc' in options.stdio");

/** send(message, handle): passing sockets and servers to a child is not supported. */
export const handlesNotSupported = () => codedError(TypeError, "ERR_INVALID_HANDLE_TYPE",
  "spawnhost cannot send handles (sockets, servers) over the IPC channel; send(message, callback) only");

/** Node's ERR_INVALID_HANDLE_TYPE: send(message, handle) with something that is no handle. */
export const notAHandle = () => codedError(TypeError, "ERR_INVALID_HANDLE_TYPE", "This handle type cannot be sent");

/** Node's checks of send()'s message: ERR_MISSING_ARGS and ERR_INVALID_ARG_TYPE. */
export function invalidMessage(message) {
  if (message === undefined) return codedError(TypeError, "ERR_MISSING_ARGS", "The \"message\" argument must be specified");
  return codedError(TypeError, "ERR_INVALID_ARG_TYPE",
    `The "message" argument must be one of type string, object, number, or boolean. Received ${nodeTypeOf(message)}`);
}

/** Node's ERR_INVALID_ARG_TYPE for send()'s options (validateObject: no null, no array). */
export const invalidSendOptions = (options) => codedError(TypeError, "ERR_INVALID_ARG_TYPE",
  `The "options" argument must be of type object. Received ${nodeTypeOf(options)}`);

/** How Node's ERR_INVALID_ARG_TYPE messages show the value received ("type number (5)"). */
export function nodeTypeOf(value) {
  if (value == null) return String(value);
  if (typeof value === "function") return `function ${value.name}`;
  if (typeof value === "object") {
    return value.constructor?.name ? `an instance of ${value.constructor.name}` : inspect(value, { depth: -1 });
  }
  switch (typeof value) {
    case "string": {
      const shown = value.length > 28 ? `${value.slice(0, 25)}...` : value;
      return `type string (${shown.includes("'") ? JSON.stringify(shown) : `'${shown}'`})`;
    }
    case "number": return `type number (${Object.is(value, -0) ? "-0" : value})`;
    case "bigint": return `type bigint (${value}n)`;
    default: return `type ${typeof value} (${String(value)})`;
  }
}
