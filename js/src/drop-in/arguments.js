// node:child_process's argument contract for the drop-in face: how each function shifts
// its optional arguments, and which calls are plain enough for the helper path.
//
// The rule that keeps errors exact: a call this file does not recognise as valid is
// not rejected here. It is handed to node:child_process itself, which throws its own
// error (class, code and message, synchronously) or, where Node accepts what we did
// not, runs it (counted as a fallback). So only the valid calls are normalized here,
// and then by core/options.js, the one options layer; nothing re-implements Node's messages.
//
// Options are read as Node reads them: from a copy of their own properties
// (core/options.js, ownOptions), at the point where Node copies them, so that what someone
// put on Object.prototype is ignored where Node ignores it, and read only where Node
// still reads the caller's object itself (execFile's argv0 and execFileSync's stdio).
import { constants as osConstants } from "node:os";
import { ownOptions } from "../core/options.js";
import { isGivenStream } from "../core/stdio-streams.js";
import { nodeChildProcess } from "./shared-host.js";

const STDIO_NAMES = new Set(["pipe", "ignore", "inherit"]);
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A valid call that the helper cannot honour (or that is not known valid): Node runs it. */
const toNode = (reason) => ({ fallbackReason: reason });

const NOT_RECOGNISED = "arguments spawnhost does not normalise (node:child_process validates them)";
// What Node reads when a call gave no options (its kEmptyObject): nothing, inherited or not.
const NO_OPTIONS = Object.freeze({ __proto__: null });

/**
 * spawn/spawnSync's `(file, args?, options?)`, shifted as Node shifts them.
 * @returns {{ file: string, args: string[], options: object } | { fallbackReason: string }}
 */
export function spawnArguments(file, args, options) {
  if (!isCleanString(file) || file.length === 0) return toNode(NOT_RECOGNISED);
  if (args == null) {
    args = [];
  } else if (!Array.isArray(args)) {
    if (typeof args !== "object") return toNode(NOT_RECOGNISED);
    options = args;
    args = [];
  }
  if (!args.every(isCleanString)) return toNode(NOT_RECOGNISED);
  if (options === undefined) options = NO_OPTIONS;
  if (!isPlainOptions(options)) return toNode(NOT_RECOGNISED);
  options = ownOptions(options);
  if (!commonOptionsValid(options)) return toNode(NOT_RECOGNISED);
  return { file, args: args.slice(), options };
}

/**
 * execFile/execFileSync's `(file, args?, options?, callback?)`, shifted as Node does.
 * `options` is the copy of its own properties; `given`, the caller's object itself,
 * whose `argv0` Node validates (inherited or not) and whose `stdio` and `argv0`
 * execFileSync reads.
 * @returns {{ file: string, args: string[], options: object, given: object, callback?: Function } | { fallbackReason: string }}
 */
export function execFileArguments(file, args, options, callback) {
  if (Array.isArray(args)) {
    args = args.slice();
  } else if (args != null && typeof args === "object") {
    callback = options;
    options = args;
    args = [];
  } else if (typeof args === "function") {
    callback = args;
    options = undefined;
    args = [];
  } else if (args == null) {
    args = [];
  } else {
    return toNode(NOT_RECOGNISED);
  }
  // A callback in the options' place stays Node's `options` too: Node reads argv0
  // from it (what Object.prototype holds, then).
  let given = options;
  if (typeof options === "function") {
    callback = options;
    options = undefined;
  }
  if (options == null) options = NO_OPTIONS;
  if (given == null) given = NO_OPTIONS;
  if (callback != null && typeof callback !== "function") return toNode(NOT_RECOGNISED);
  if (!isCleanString(file) || file.length === 0 || !args.every(isCleanString)) return toNode(NOT_RECOGNISED);
  if (!isPlainOptions(options)) return toNode(NOT_RECOGNISED);
  // Node validates argv0 here, on the caller's object, though execFile does not pass it on.
  if (given.argv0 != null && !isCleanString(given.argv0)) return toNode(NOT_RECOGNISED);
  options = ownOptions(options);
  if (!commonOptionsValid(options) || !execOptionsValid(options)) return toNode(NOT_RECOGNISED);
  return { file, args, options, given, callback: callback ?? undefined };
}

/**
 * exec/execSync's `(command, options?, callback?)` as Node shifts them: execFile of the
 * command with `shell: true`, unless a shell is named.
 * @returns {{ command: string, options: object, callback: unknown } | { fallbackReason: string }}
 */
export function execArguments(command, options, callback) {
  if (typeof options === "function") {
    callback = options;
    options = undefined;
  }
  const shifted = ownOptions(options);
  shifted.shell = typeof shifted.shell === "string" ? shifted.shell : true;
  // Node checks the command itself first (its errors name "command", not "file").
  if (!isCleanString(command)) return toNode(NOT_RECOGNISED);
  return { command, options: shifted, callback };
}

/**
 * fork's `(modulePath, args?, options?)`.
 * @returns {{ modulePath: string|URL, args: string[], options: object } | { fallbackReason: string }}
 */
export function forkArguments(modulePath, args, options) {
  if (!(modulePath instanceof URL && modulePath.protocol === "file:") && !isCleanString(modulePath)) return toNode(NOT_RECOGNISED);
  if (args == null) {
    args = [];
  } else if (typeof args === "object" && !Array.isArray(args)) {
    options = args;
    args = [];
  } else if (!Array.isArray(args)) {
    return toNode(NOT_RECOGNISED);
  }
  if (!args.every(isCleanString)) return toNode(NOT_RECOGNISED);
  if (options == null) options = NO_OPTIONS;
  if (!isPlainOptions(options)) return toNode(NOT_RECOGNISED);
  options = ownOptions(options);
  if (!commonOptionsValid(options)) return toNode(NOT_RECOGNISED);
  if (options.execPath != null && !isCleanString(options.execPath)) return toNode(NOT_RECOGNISED);
  const execArgv = options.execArgv || process.execArgv;
  if (!Array.isArray(execArgv) || !execArgv.every(isCleanString)) return toNode(NOT_RECOGNISED);
  if (Array.isArray(options.stdio) && !options.stdio.includes("ipc")) return toNode(NOT_RECOGNISED);
  return { modulePath, args: args.slice(), options };
}

/**
 * Why the helper cannot take this `stdio` (and node:child_process must run the call),
 * or null when it can: fds 0-2 as pipe, ignore, inherit, the same fd number or (where
 * the helper takes descriptors) a stream with a Pipe or TCP handle, and "ipc" only as
 * the fourth entry.
 * @param {unknown} stdio
 * @param {{ ipcAllowed: boolean, streamsAllowed?: boolean }} how ipcAllowed: false for the
 *   sync functions; streamsAllowed: the helper takes descriptors of Node's
 */
export function stdioMisfit(stdio, { ipcAllowed, streamsAllowed = false }) {
  if (stdio == null || (typeof stdio === "string" && STDIO_NAMES.has(stdio))) return null;
  if (!Array.isArray(stdio)) return typeof stdio === "string" ? `stdio "${stdio}"` : NOT_RECOGNISED;
  const ipcAt = stdio.indexOf("ipc");
  if (ipcAt !== -1 && (!ipcAllowed || ipcAt !== 3 || stdio.lastIndexOf("ipc") !== ipcAt)) return `"ipc" at stdio[${ipcAt}]`;
  if (stdio.length > (ipcAt === 3 ? 4 : 3)) return "more than three stdio entries besides \"ipc\"";
  for (let fd = 0; fd < Math.min(stdio.length, 3); fd++) {
    const entry = stdio[fd];
    if (entry == null || STDIO_NAMES.has(entry) || entry === fd || entry?.fd === fd) continue;
    if (typeof entry === "number") return `stdio[${fd}] is the descriptor ${entry}`;
    if (typeof entry?.fd === "number") return `stdio[${fd}] is a ${entry.constructor?.name ?? "object"} with the descriptor ${entry.fd}`;
    if (streamsAllowed && isGivenStream(entry)) continue;
    if (typeof entry === "object") return `stdio[${fd}] is a ${entry.constructor?.name ?? "object"}${isGivenStream(entry) ? " (this helper takes no descriptors)" : ""}`;
    return `stdio[${fd}] is "${entry}"`;
  }
  return null;
}

// The checks where core/options.js would accept what Node rejects; everything else that is
// wrong, core/options.js rejects too, and the call then goes to Node as well.
function commonOptionsValid(o) {
  if (o.signal !== undefined && !(o.signal !== null && typeof o.signal === "object" && "aborted" in o.signal)) return false;
  for (const id of [o.uid, o.gid]) {
    if (id != null && !(Number.isInteger(id) && id >= INT32_MIN && id <= INT32_MAX)) return false;
  }
  if (o.killSignal != null && !knownSignal(o.killSignal)) return false;
  if (o.env != null && typeof o.env !== "object") return false;
  return true;
}

function execOptionsValid(o) {
  return o.maxBuffer == null || (typeof o.maxBuffer === "number" && o.maxBuffer >= 0);
}

function knownSignal(signal) {
  if (typeof signal === "string") return Object.hasOwn(osConstants.signals, signal);
  return typeof signal === "number" && Object.values(osConstants.signals).includes(signal);
}

function isPlainOptions(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isCleanString(value) {
  return typeof value === "string" && !value.includes("\u0000");
}

// Node 24 and later warn once per process when arguments are passed with `shell`: they
// are joined into the command line, not escaped (DEP0190).
const WARNS_SHELL_WITH_ARGS = Number(process.versions.node.split(".")[0]) >= 24;
let warnedShellWithArgs = false;

/**
 * Emits DEP0190 as Node's spawn, execFile and spawnSync do, where Node does: once per
 * process, counting the calls node:child_process itself ran (fallbacks). So the warning
 * is Node's own: a spawnSync that Node refuses after its warning (an env key with a NUL
 * byte) makes Node warn, and sets Node's own once-only flag, and launches nothing.
 */
export function warnShellWithArgs(args, options) {
  if (!WARNS_SHELL_WITH_ARGS || warnedShellWithArgs || !options.shell || args.length === 0) return;
  warnedShellWithArgs = true;
  try {
    nodeChildProcess.spawnSync("sh", ["-c"], { shell: true, env: { "\u0000": "" } });
  } catch {
    // ERR_INVALID_ARG_VALUE, thrown after the warning was emitted (or already had been).
  }
}
