// The one options layer: every public call validates and normalizes its arguments here,
// before choosing a backend, so inline and helper mode see identical requests.
// Normalization follows lib/child_process.js (normalizeSpawnArguments, execFile,
// normalizeExecArgs) so that spawnfile/spawnargs/cmd/env come out exactly as Node's.
import { constants as osConstants } from "node:os";
import { fileURLToPath } from "node:url";
import { inheritedProcessEnvPairs, readProcessEnv, trackedProcessEnv } from "./process-env.js";
import { errnoError, invalidOption, ipcOnePipe, ipcRequired, nulByteInOption } from "./errors.js";
import { isGivenStream } from "./stdio-streams.js";

const SIGNAL_NAME_BY_NUMBER = new Map(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));
const DEFAULT_MAX_BUFFER = 1024 * 1024;

const STDIO_NAMES = new Set(["pipe", "ignore", "inherit"]);
// The helper hands the channel to the child as fd 3, where fork() puts it.
const IPC_FD = 3;
// The `how` of a call that gave none: null-prototype, so that its destructuring cannot
// pick up a property someone put on Object.prototype.
const NO_HOW = Object.freeze({ __proto__: null });

/**
 * The options a call was given, as child_process reads them: its own properties only,
 * copied into an object without a prototype (lib/child_process.js does the same,
 * `{ __proto__: null, ...options }`), so that properties put on Object.prototype (by
 * prototype pollution, say) are ignored, as Node ignores them.
 * @param {object|null|undefined} options
 * @returns {object}
 */
export function ownOptions(options) {
  return { __proto__: null, ...options };
}

/**
 * Resolves a signal given by name or number to its name, the way child_process
 * validates `killSignal` and `kill()` arguments.
 * @param {string|number} signal
 * @param {string} optionName used in the error
 * @returns {string} e.g. "SIGTERM"
 */
export function signalName(signal, optionName = "signal") {
  if (typeof signal === "number" && SIGNAL_NAME_BY_NUMBER.has(signal)) return SIGNAL_NAME_BY_NUMBER.get(signal);
  if (typeof signal === "string" && Object.hasOwn(osConstants.signals, signal)) return signal;
  if (typeof signal !== "string" && typeof signal !== "number") {
    throw invalidOption(optionName, signal, "a signal name or number");
  }
  const error = new TypeError(`Unknown signal: ${signal}`);
  error.code = "ERR_UNKNOWN_SIGNAL";
  throw error;
}

/**
 * Splits `(file, args?, options?)` like execFile/spawn do: args may be omitted, and an
 * object in its place is the options.
 */
export function splitArguments(args, options) {
  if (args == null) return { args: [], options: options ?? {} };
  if (!Array.isArray(args)) {
    if (typeof args === "object" && options === undefined) return { args: [], options: args };
    throw invalidOption("args", args, "an array of strings", "ERR_INVALID_ARG_VALUE");
  }
  return { args, options: options ?? {} };
}

/**
 * Normalizes an execFile/exec call.
 * @param {string} file
 * @param {string[]} args
 * @param {object} options
 * @param {{ viaExec?: boolean, platform?: string, defaultEnv?: DefaultEnv }} [how] viaExec: `file` is exec's command
 *   string; platform: the helper's (shell rules), default this process's
 */
export function normalizeExecRequest(file, args, options, { viaExec = false, platform = process.platform, defaultEnv = "read" } = NO_HOW) {
  checkObject("options", options);
  options = ownOptions(options);
  if (viaExec) {
    checkString("command", file);
    options.shell = typeof options.shell === "string" ? options.shell : true;
  }
  const request = normalizeCommon("exec", file, args, options, platform, defaultEnv);
  request.cmd = viaExec ? file : [file, ...args].join(" ");
  request.maxBuffer = optional(options.maxBuffer, DEFAULT_MAX_BUFFER, (v) => {
    if (typeof v !== "number" || Number.isNaN(v) || v < 0) throw invalidOption("maxBuffer", v, "a non-negative number");
    return v;
  });
  // Like execFile: "buffer" and names that are not Buffer encodings give Buffers.
  const encoding = options.encoding === undefined ? "utf8" : options.encoding;
  request.encoding = encoding !== "buffer" && Buffer.isEncoding(encoding) ? encoding : "buffer";
  request.input = optional(options.input, undefined, (v) => {
    if (typeof v === "string") return Buffer.from(v);
    if (ArrayBuffer.isView(v)) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    throw invalidOption("input", v, "a string, Buffer, TypedArray or DataView");
  });
  request.completeWhen = optional(options.completeWhen, undefined, (v) => {
    if (v !== "stdout-json") throw invalidOption("completeWhen", v, "\"stdout-json\"", "ERR_INVALID_ARG_VALUE");
    return v;
  });
  request.stdio = ["pipe", "pipe", "pipe"];
  return idsChecked(request);
}

/**
 * Normalizes a spawn call. `request.stdio` is always fds 0-2; `request.ipc` says
 * whether fd 3 is an IPC channel, with `request.serialization`.
 */
export function normalizeSpawnRequest(file, args, options, { platform = process.platform, givenAvailable = false, defaultEnv = "read", sync = false } = NO_HOW) {
  checkObject("options", options);
  options = ownOptions(options);
  const request = normalizeCommon("spawn", file, args, options, platform, defaultEnv, sync);
  const { stdio, ipc } = normalizeStdio(options.stdio, givenAvailable && !sync);
  request.stdio = stdio;
  // Streams of Node's given to the child (launch/given-stdio.js), by fd.
  if (stdio.includes("given")) request.given = [0, 1, 2].map((fd) => (stdio[fd] === "given" ? options.stdio[fd] : null));
  request.ipc = ipc;
  // Only undefined means the default: child_process refuses null here (validateOneOf).
  const serialization = options.serialization;
  if (serialization !== undefined && serialization !== "json" && serialization !== "advanced") {
    throw invalidOption("serialization", serialization, "\"json\" or \"advanced\"", "ERR_INVALID_ARG_VALUE");
  }
  request.serialization = serialization ?? "json";
  return idsChecked(request);
}

/**
 * Normalizes a fork call the way child_process.fork does: the program is execPath,
 * its arguments execArgv + modulePath + args, and stdio gains an "ipc" entry.
 * @param {string|URL} modulePath
 */
export function normalizeForkRequest(modulePath, args, options, { platform = process.platform, givenAvailable = false, defaultEnv = "read" } = NO_HOW) {
  if (modulePath instanceof URL) modulePath = fileURLToPath(modulePath);
  else if (Buffer.isBuffer(modulePath)) modulePath = modulePath.toString();
  checkString("modulePath", modulePath);
  checkObject("options", options);
  options = ownOptions(options);
  if (!Array.isArray(args)) throw invalidOption("args", args, "an array of strings", "ERR_INVALID_ARG_VALUE");
  const execPath = options.execPath || process.execPath;
  checkString("execPath", execPath);
  let execArgv = options.execArgv ?? process.execArgv;
  if (!Array.isArray(execArgv)) throw invalidOption("execArgv", execArgv, "an array of strings");
  execArgv.forEach((arg, i) => checkString(`execArgv[${i}]`, arg));
  // Started with -e/--eval, the parent's execArgv holds its script: fork must not run it
  // again in the child (child_process removes it the same way).
  if (execArgv === process.execArgv && process._eval != null) {
    const index = execArgv.lastIndexOf(process._eval);
    if (index > 0) execArgv = execArgv.toSpliced(index - 1, 2);
  }
  let stdio = options.stdio;
  if (typeof stdio === "string") stdio = [...normalizeStdio(stdio).stdio, "ipc"];
  else if (!Array.isArray(stdio)) stdio = options.silent ? ["pipe", "pipe", "pipe", "ipc"] : ["inherit", "inherit", "inherit", "ipc"];
  else if (!stdio.includes("ipc")) throw ipcRequired();
  return normalizeSpawnRequest(execPath, [...execArgv, modulePath, ...args], { __proto__: null, ...options, shell: false, stdio }, { __proto__: null, platform, givenAvailable, defaultEnv });
}

// Windows has no uid or gid to switch to: libuv's spawn fails with ENOTSUP before it
// looks at anything else, so child_process throws `spawn ENOTSUP` at the call (and a
// sync call returns it as its error), after every option was validated.
function idsChecked(request) {
  if (request.platform === "win32" && (request.uid !== undefined || request.gid !== undefined)) throw errnoError("ENOTSUP", "spawn");
  return request;
}

// `options` has no prototype (ownOptions); the request made here has none either, so
// that no later read of a field it lacks reaches Object.prototype.
function normalizeCommon(kind, file, args, options, platform, defaultEnv, sync = false) {
  checkString("file", file);
  if (file.length === 0) throw invalidOption("file", file, "a non-empty string", "ERR_INVALID_ARG_VALUE");
  if (!Array.isArray(args)) throw invalidOption("args", args, "an array of strings", "ERR_INVALID_ARG_VALUE");
  args.forEach((arg, i) => checkString(`args[${i}]`, arg));

  const shell = optional(options.shell, false, (v) => {
    if (typeof v === "boolean") return v;
    checkString("shell", v);
    return v;
  });
  const argv0 = optional(options.argv0, undefined, (v) => checkString("argv0", v));

  let spawnfile = file;
  let spawnargs = args.slice();
  let windowsVerbatimArguments = optional(options.windowsVerbatimArguments, false, (v) => checkBoolean("windowsVerbatimArguments", v));
  if (shell) {
    const command = [file, ...args].join(" ");
    if (platform === "win32") {
      // child_process on Windows: %ComSpec% or cmd.exe; for cmd, `/d /s /c "command"`
      // passed verbatim, so cmd sees the command exactly as written.
      spawnfile = typeof shell === "string" ? shell : (process.platform === "win32" && process.env.comspec) || "cmd.exe";
      if (/^(?:.*\\)?cmd(?:\.exe)?$/i.test(spawnfile)) {
        spawnargs = ["/d", "/s", "/c", `"${command}"`];
        windowsVerbatimArguments = true;
      } else {
        spawnargs = ["-c", command];
      }
    } else {
      spawnfile = typeof shell === "string" ? shell : "/bin/sh";
      spawnargs = ["-c", command];
    }
  }
  spawnargs.unshift(argv0 ?? spawnfile);

  const env = normalizeEnv(options.env, defaultEnv, platform);
  const killSignal = signalName(options.killSignal ?? "SIGTERM", "killSignal");
  const cwd = normalizeCwd(options.cwd);
  return {
    __proto__: null,
    kind,
    file,
    args,
    spawnfile,
    spawnargs,
    // An empty cwd is no cwd for Node's spawn (its process wrap skips it); spawnSync
    // hands it to chdir, which fails with ENOENT.
    cwd: cwd === "" && !sync ? undefined : cwd,
    env: env.object,
    envPairs: env.pairs,
    timeout: optional(options.timeout, 0, (v) => {
      if (!Number.isInteger(v) || v < 0) throw invalidOption("timeout", v, "a non-negative integer (milliseconds)", "ERR_OUT_OF_RANGE");
      return v;
    }),
    killSignal,
    signal: optional(options.signal, undefined, (v) => {
      if (typeof v !== "object" || !("aborted" in v)) throw invalidOption("signal", v, "an AbortSignal");
      return v;
    }),
    uid: optional(options.uid, undefined, (v) => checkId("uid", v)),
    gid: optional(options.gid, undefined, (v) => checkId("gid", v)),
    detached: optional(options.detached, false, (v) => checkBoolean("detached", v)),
    windowsHide: optional(options.windowsHide, false, (v) => checkBoolean("windowsHide", v)),
    windowsVerbatimArguments,
    platform,
  };
}

/**
 * Where a launch without `env` gets its environment: "read", process.env read at the
 * call; "tracked", the same, re-read only after JavaScript wrote to it (trackEnv);
 * "remote", none sent: a helper across a transport uses its own.
 * @typedef {"read"|"tracked"|"remote"} DefaultEnv
 */

// `env` defaults to process.env as it is at call time. Keys from the prototype chain
// count and undefined values are dropped, as in child_process. `object` is what inline
// mode hands child_process: undefined for the default, which child_process reads itself.
function normalizeEnv(envOption, defaultEnv, platform) {
  if (envOption == null) {
    if (defaultEnv === "remote") return { object: undefined, pairs: undefined };
    const pairs = defaultEnv === "tracked" ? trackedProcessEnv() : readProcessEnv();
    // Keys process.env inherits count as in child_process (core/process-env.js).
    const inherited = inheritedProcessEnvPairs();
    if (inherited.length === 0) return { object: undefined, pairs };
    for (const pair of inherited) checkNoNul(`env['${pair.slice(0, pair.indexOf("="))}']`, pair);
    return { object: undefined, pairs: [...pairs, ...inherited] };
  }
  checkObject("env", envOption);
  const object = {};
  const pairs = [];
  // A user's object may inherit keys, which child_process includes.
  for (const [key, value] of inheritedEntries(envOption, platform)) {
    if (value === undefined) continue;
    checkNoNul(`env['${key}']`, key);
    checkNoNul(`env['${key}']`, String(value));
    object[key] = String(value);
    pairs.push(`${key}=${value}`);
  }
  // child_process always passes NODE_V8_COVERAGE on, so that coverage reaches children.
  if (process.env.NODE_V8_COVERAGE !== undefined && !Object.hasOwn(object, "NODE_V8_COVERAGE")) {
    object.NODE_V8_COVERAGE = process.env.NODE_V8_COVERAGE;
    pairs.push(`NODE_V8_COVERAGE=${process.env.NODE_V8_COVERAGE}`);
  }
  return { object, pairs };
}

// Windows names are case-insensitive: child_process sorts the names (by code unit, so
// "PATH" before "Path" before "path") and keeps the first of each, before it drops
// undefined values. Sent both, the Windows helper's block would hold both.
function inheritedEntries(object, platform) {
  const keys = [];
  for (const key in object) keys.push(key);
  if (platform === "win32") {
    const seen = new Set();
    return keys.sort().filter((key) => !seen.has(key.toUpperCase()) && seen.add(key.toUpperCase())).map((key) => [key, object[key]]);
  }
  return keys.map((key) => [key, object[key]]);
}

function normalizeCwd(cwd) {
  if (cwd == null) return undefined;
  if (cwd instanceof URL) {
    if (cwd.protocol !== "file:") throw invalidOption("cwd", cwd.href, "a path string, Buffer or file: URL", "ERR_INVALID_URL_SCHEME");
    return fileURLToPath(cwd);
  }
  if (Buffer.isBuffer(cwd)) cwd = cwd.toString();
  return checkString("cwd", cwd);
}

function normalizeStdio(stdio, givenAvailable = false) {
  if (stdio == null) return { stdio: ["pipe", "pipe", "pipe"], ipc: false };
  if (typeof stdio === "string") {
    if (!STDIO_NAMES.has(stdio)) throw invalidOption("stdio", stdio, "\"pipe\", \"ignore\", \"inherit\" or an array of those", "ERR_INVALID_ARG_VALUE");
    return { stdio: [stdio, stdio, stdio], ipc: false };
  }
  if (!Array.isArray(stdio)) throw invalidOption("stdio", stdio, "a string or an array");
  const ipcAt = stdio.indexOf("ipc");
  if (ipcAt !== -1 && stdio.lastIndexOf("ipc") !== ipcAt) throw ipcOnePipe();
  // Both modes accept only what the helper can do, so code tried inline works in
  // helper mode too.
  if (ipcAt !== -1 && ipcAt !== IPC_FD) {
    throw invalidOption(`stdio[${ipcAt}]`, "ipc", `at index 3 ([stdin, stdout, stderr, "ipc"]): the helper gives the child its IPC channel as fd 3, where fork() puts it`, "ERR_INVALID_ARG_VALUE");
  }
  if (stdio.length > (ipcAt === IPC_FD ? 4 : 3)) {
    throw invalidOption("stdio", stdio, "at most three entries, and \"ipc\" as a fourth (other descriptors are not supported)", "ERR_INVALID_ARG_VALUE");
  }
  return { stdio: normalizeStdioEntries(stdio, givenAvailable), ipc: ipcAt === IPC_FD };
}

function normalizeStdioEntries(stdio, givenAvailable) {
  return [0, 1, 2].map((fd) => {
    const entry = stdio[fd];
    if (entry == null) return "pipe";
    if (STDIO_NAMES.has(entry)) return entry;
    // An integer n gives the child the parent's fd n, and so does an object whose `fd`
    // is n (process.stdout, an fs stream), as child_process reads it; only n === fd maps
    // onto "inherit".
    if (entry === fd || entry?.fd === fd) return "inherit";
    if (givenAvailable && typeof entry?.fd !== "number" && isGivenStream(entry)) return "given";
    const streams = givenAvailable ? "other descriptors are not supported" : "streams need a local helper that takes descriptors (Linux, macOS, from the main thread), other descriptors are not supported";
    throw invalidOption(`stdio[${fd}]`, entry, `"pipe", "ignore", "inherit", ${fd} or a stream with a handle (${streams})`, "ERR_INVALID_ARG_VALUE");
  });
}

function optional(value, fallback, check) {
  return value == null ? fallback : check(value);
}

function checkObject(name, value) {
  if (value === null || typeof value !== "object") throw invalidOption(name, value, "an object");
  return value;
}

function checkString(name, value) {
  if (typeof value !== "string") throw invalidOption(name, value, "a string");
  return checkNoNul(name, value);
}

function checkNoNul(name, value) {
  if (value.includes("\u0000")) throw nulByteInOption(name, value);
  return value;
}

function checkBoolean(name, value) {
  if (typeof value !== "boolean") throw invalidOption(name, value, "a boolean");
  return value;
}

function checkId(name, value) {
  if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
    throw invalidOption(name, value, "an integer between 0 and 4294967295", "ERR_OUT_OF_RANGE");
  }
  return value;
}
