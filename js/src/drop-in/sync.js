// spawnSync, execFileSync and execSync of the drop-in face. All three share one
// normalization (arguments.js, then core/options.js) and one launch, the shared host's
// launchSync (through the helper's blocking channel in helper mode: sync/launch.js, so
// that the call costs the same whatever this process's size); this file shapes its raw
// result into Node's result objects and errors, field for field.
import { normalizeSpawnRequest } from "../core/options.js";
import { errnoOf } from "../core/errors.js";
import { execArguments, execFileArguments, spawnArguments, stdioMisfit, warnShellWithArgs } from "./arguments.js";
import { countFallback, countHelperLaunch, sharedHost } from "./shared-host.js";
import { helperMissing, notNormalised, viaNode } from "./launch.js";

const DEFAULT_MAX_BUFFER = 1024 * 1024;
// With no process created (output null), Node 20 gives stdout/stderr null and Node 22
// and later undefined.
const NO_OUTPUT = Number(process.versions.node.split(".")[0]) >= 22 ? undefined : null;

/**
 * child_process.spawnSync.
 * @returns {import("node:child_process").SpawnSyncReturns<string|Buffer>}
 */
export function spawnSync(file, args, options) {
  const call = spawnArguments(file, args, options);
  const reason = call.fallbackReason ?? syncMisfit(call.options) ?? inheritedInput() ?? helperMissing();
  if (reason) return viaNode("spawnSync", reason, arguments);
  let request;
  try {
    request = syncRequest(call);
  } catch (error) {
    return viaNode("spawnSync", notNormalised(error), arguments);
  }
  warnShellWithArgs(call.args, call.options);
  const host = sharedHost();
  const result = host.launchSync(request);
  // node:child_process ran it after all: counted with why.
  if (result.viaNode) countFallback(host.mode === "inline" ? "inline mode" : "the helper has no sync channel");
  else countHelperLaunch();
  return shapeResult(result, request, call.options.encoding);
}

/**
 * child_process.execFileSync: stdout, or an Error carrying the whole result.
 * @returns {string|Buffer}
 */
export function execFileSync(file, args, options) {
  const call = execFileArguments(file, args, options);
  if (call.fallbackReason) return viaNode("execFileSync", call.fallbackReason, arguments);
  const result = spawnSync(call.file, call.args, call.options);
  // Node reads these two from the caller's object, inherited properties included.
  if (!call.given.stdio && result.stderr) process.stderr.write(result.stderr);
  const error = execSyncError(result, [call.given.argv0 || call.file, ...call.args].join(" "));
  if (error) throw error;
  return result.stdout;
}

/**
 * child_process.execSync: the command runs in a shell.
 * @returns {string|Buffer}
 */
export function execSync(command, options) {
  const call = execArguments(command, options);
  if (call.fallbackReason) return viaNode("execSync", call.fallbackReason, arguments);
  const result = spawnSync(call.command, call.options);
  if (!call.options.stdio && result.stderr) process.stderr.write(result.stderr);
  const error = execSyncError(result, command);
  if (error) throw error;
  return result.stdout;
}

// What only the sync functions take: `input` and output encodings Node would refuse
// go to Node, which throws for them; stdio the helper cannot take, Node runs.
function syncMisfit(o) {
  const encodingKnown = o.encoding == null || o.encoding === "buffer" || Buffer.isEncoding(o.encoding);
  if (!encodingKnown) return "an encoding Node does not know";
  if (o.input && !(ArrayBuffer.isView(o.input) || (typeof o.input === "string" && (o.encoding == null || Buffer.isEncoding(o.encoding))))) {
    return "an input Node does not take";
  }
  if (o.maxBuffer != null && !(typeof o.maxBuffer === "number" && o.maxBuffer >= 0)) return "a maxBuffer Node does not take";
  return stdioMisfit(o.stdio, { ipcAllowed: false });
}

// Node's spawnSync reads `input` from each stdio entry it makes (plain objects), so an
// `input` put on Object.prototype reaches the child's stdin, or makes Node throw: such a
// call is Node's to run.
function inheritedInput() {
  return {}.input != null ? "an input inherited from Object.prototype (Node's spawnSync reads it)" : null;
}

/** @returns {import("../sync/launch.js").SyncRequest} */
function syncRequest({ file, args, options }) {
  const spawned = normalizeSpawnRequest(file, args, { ...options, signal: undefined }, { __proto__: null, sync: true });
  let input;
  if (options.input) {
    input = typeof options.input === "string"
      ? Buffer.from(options.input, options.encoding ?? "utf8")
      : Buffer.from(options.input.buffer, options.input.byteOffset, options.input.byteLength);
  }
  // No prototype: the launch reads fields this request may lack (detached, ...).
  return {
    __proto__: null,
    file: spawned.spawnfile,
    args: spawned.spawnargs.slice(1),
    argv0: spawned.spawnargs[0],
    envPairs: spawned.envPairs,
    cwd: spawned.cwd,
    stdio: spawned.stdio,
    input,
    timeout: spawned.timeout,
    killSignal: spawned.killSignal,
    maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
    uid: spawned.uid,
    gid: spawned.gid,
    windowsHide: spawned.windowsHide,
    windowsVerbatimArguments: spawned.windowsVerbatimArguments,
  };
}

// Node's spawnSync result: `error` first when there is one, then status, signal,
// output (null when no process was created; one entry per stdio, null where not
// piped), pid, stdout, stderr; outputs decoded when an encoding other than "buffer"
// was asked for.
/** @param {import("../sync/launch.js").SyncResult} launched */
function shapeResult(launched, request, encoding) {
  const result = {};
  // The errno name (ENOENT, ETIMEDOUT, ENOBUFS...) is all that is read of the launch's
  // error: the Error is built here, as Node's spawnSync builds it.
  const code = launched.error?.code;
  if (code) {
    const error = new Error(`spawnSync ${request.file} ${code}`);
    error.errno = errnoOf(code);
    error.code = code;
    error.syscall = `spawnSync ${request.file}`;
    error.path = request.file;
    error.spawnargs = request.args;
    result.error = error;
  }
  result.status = launched.status;
  result.signal = launched.signal;
  const decode = (bytes) => (bytes && encoding && encoding !== "buffer" ? bytes.toString(encoding) : bytes);
  result.output = code && launched.pid === 0 ? null : [null, decode(launched.stdout), decode(launched.stderr)];
  result.pid = launched.pid;
  result.stdout = result.output ? result.output[1] : NO_OUTPUT;
  result.stderr = result.output ? result.output[2] : NO_OUTPUT;
  return result;
}

// execFileSync/execSync's failure: the launch's own error, or "Command failed" for a
// non-zero status (a signal included), either one carrying the whole result.
function execSyncError(result, command) {
  if (result.error) return Object.assign(result.error, result);
  if (result.status === 0) return undefined;
  let message = `Command failed: ${command}`;
  if (result.stderr && result.stderr.length > 0) message += `\n${result.stderr.toString()}`;
  return Object.assign(new Error(message), result);
}
