// spawn, fork, execFile and exec of the drop-in face: each shifts its arguments as Node
// does (arguments.js), normalizes them with core/options.js, and starts the launch on the
// shared host, returning a ChildProcess at once. A call the helper cannot honour is
// run by node:child_process itself, and counted with its reason.
import { promisify } from "node:util";
import { normalizeExecRequest, normalizeForkRequest, normalizeSpawnRequest } from "../core/options.js";
import { deadlineKeptByCaller } from "../core/deadline.js";
import { collectOutput } from "../launch/exec-run.js";
import { execArguments, execFileArguments, forkArguments, spawnArguments, stdioMisfit, warnShellWithArgs } from "./arguments.js";
import { DropInChildProcess } from "./child.js";
import { asNodeError } from "./node-errors.js";
import { countFallback, countHelperLaunch, nodeChildProcess, sharedHost } from "./shared-host.js";
import { forkChannelsRefuseHandles, ownsForkChannels } from "../launch/node-channel.js";
import { carriesGivenStreams, takesDescriptors } from "../launch/given-stdio.js";
import { linkRelayed, relayedStdio } from "../launch/relayed-stdio.js";

// Streams as stdio entries go to a helper that takes descriptors (launch/given-stdio.js);
// elsewhere node:child_process runs those calls.
const STDIO_HOW = { ipcAllowed: true, streamsAllowed: takesDescriptors() };
const NORMALIZE_HOW = { __proto__: null, givenAvailable: STDIO_HOW.streamsAllowed };
// Where the helper cannot take them, Windows Node carries such streams itself.
const CARRIED = { sockets: !STDIO_HOW.streamsAllowed && carriesGivenStreams() };

// The execFile options Node passes on to its spawn; it ignores the others (stdio,
// argv0, detached, ...), and so must we.
const EXEC_FILE_OPTIONS = ["cwd", "env", "gid", "shell", "signal", "uid", "windowsHide", "windowsVerbatimArguments", "timeout", "maxBuffer", "killSignal", "encoding"];

/**
 * child_process.spawn through the helper.
 * @returns {import("node:child_process").ChildProcess}
 */
export function spawn(file, args, options) {
  const call = spawnArguments(file, args, options);
  const relayed = relayedCall(call, arguments);
  if (relayed) return relayed.link(spawn(...relayed.args));
  const reason = call.fallbackReason ?? (hasIpc(call.options.stdio) ? HANDLES_REFUSED : null) ?? stdioMisfit(call.options.stdio, STDIO_HOW) ?? helperMissing();
  if (reason) return viaNode("spawn", reason, arguments);
  let request;
  try {
    request = normalizeSpawnRequest(call.file, call.args, { ...call.options, signal: undefined }, NORMALIZE_HOW);
  } catch (error) {
    return viaNode("spawn", notNormalised(error), arguments);
  }
  if (execRefuses(request)) return viaNode("spawn", EXEC_REFUSES, arguments);
  warnShellWithArgs(call.args, call.options);
  return start(request, call.options.signal);
}

/**
 * child_process.fork through the helper. (`args = []` only gives fork Node's `length`,
 * 1; the call itself is read from `arguments`.)
 * @returns {import("node:child_process").ChildProcess}
 */
export function fork(modulePath, args = [], options) {
  const call = forkArguments(modulePath, args, options);
  const relayed = relayedCall(call, arguments);
  if (relayed) return relayed.link(fork(...relayed.args));
  const reason = call.fallbackReason ?? HANDLES_REFUSED ?? clusterWorker(call.options) ?? stdioMisfit(call.options.stdio, STDIO_HOW) ?? helperMissing();
  if (reason) return viaNode("fork", reason, arguments);
  let request;
  try {
    request = normalizeForkRequest(call.modulePath, call.args, { ...call.options, signal: undefined }, NORMALIZE_HOW);
  } catch (error) {
    return viaNode("fork", notNormalised(error), arguments);
  }
  if (execRefuses(request)) return viaNode("fork", EXEC_REFUSES, arguments);
  return start(request, call.options.signal);
}

/**
 * child_process.execFile through the helper: output gathered (and maxBuffer enforced)
 * by the helper and launch/exec-run.js, the callback called as Node's.
 * @returns {import("node:child_process").ChildProcess}
 */
export function execFile(file, args, options, callback) {
  const call = execFileArguments(file, args, options, callback);
  const reason = call.fallbackReason ?? helperMissing();
  if (reason) return viaNode("execFile", reason, arguments);
  const execOptions = {};
  for (const name of EXEC_FILE_OPTIONS) if (call.options[name] !== undefined) execOptions[name] = call.options[name];
  // Node's execFile spreads the options over its defaults: an `encoding` given as
  // undefined replaces "utf8", and is not an encoding, so the outputs are Buffers.
  if (Object.hasOwn(call.options, "encoding") && call.options.encoding === undefined) execOptions.encoding = "buffer";
  let request;
  try {
    request = normalizeExecRequest(call.file, call.args, { ...execOptions, signal: undefined });
  } catch (error) {
    return viaNode("execFile", notNormalised(error), arguments);
  }
  if (execRefuses(request)) return viaNode("execFile", EXEC_REFUSES, arguments);
  warnShellWithArgs(call.args, call.options);
  // The deadline runs here, from the call, as Node's execFile runs it.
  const launch = sharedHost().startLaunch(deadlineKeptByCaller(request));
  countHelperLaunch();
  const done = call.callback ?? (() => {});
  // Node's execFile passes the child's `error` to its callback before anyone else
  // hears it, as one object: the callback's, with `cmd` added.
  let callbackError = null;
  // Registered before the ChildProcess forwards anything, as Node's execFile listens
  // first: the callback runs before the caller's own `close` and `error` listeners.
  let child = null;
  const collector = collectOutput(launch, request,
    ({ stdout, stderr }) => done(null, stdout, stderr),
    (error) => {
      const { stdout = emptyOutput(request), stderr = emptyOutput(request) } = error;
      callbackError = asNodeError(error);
      // The helper stopped the output at maxBuffer and ended the child for us, where
      // Node's execFile calls child.kill(killSignal) itself. That call is still made
      // (the child is gone: it sends nothing) so that a kill() that throws fails the
      // call with its error, as in Node.
      if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
        launch.child.killed = true;
        try {
          child.kill(request.killSignal);
        } catch (thrown) {
          callbackError = thrown;
          callbackError.cmd = request.cmd;
        }
      }
      done(callbackError, stdout, stderr);
    },
    { kill: (signal) => child.kill(signal) });
  child = new DropInChildProcess(launch.child, launch.launched, {
    // Node's execFile does not pass killSignal to its spawn: an abort sends SIGTERM.
    killSignal: "SIGTERM",
    signal: call.options.signal,
    translateError: (error) => callbackError ?? asNodeError(error),
  });
  // Node's execFile listens on the ChildProcess it returns: a `close` or `error` that
  // anyone emits there settles the call, if nothing did before (the collector already
  // heard the launch's own ones). So its child's `error` never goes unheard either.
  child.on("close", collector.close);
  child.on("error", collector.fail);
  return child;
}

/**
 * child_process.exec through the helper: execFile of the command in a shell.
 * @returns {import("node:child_process").ChildProcess}
 */
export function exec(command, options, callback) {
  const call = execArguments(command, options, callback);
  if (call.fallbackReason) return viaNode("exec", call.fallbackReason, arguments);
  return execFile(call.command, call.options, call.callback);
}

// util.promisify(exec|execFile) resolves { stdout, stderr } and exposes the child as
// `promise.child`; a failure carries stdout and stderr, as Node's promisified forms do.
for (const fn of [exec, execFile]) {
  Object.defineProperty(fn, promisify.custom, {
    enumerable: false,
    value: (...args) => {
      let settle;
      const promise = new Promise((resolve, reject) => { settle = { resolve, reject }; });
      promise.child = fn(...args, (error, stdout, stderr) => {
        if (error !== null) {
          error.stdout = stdout;
          error.stderr = stderr;
          settle.reject(error);
        } else {
          settle.resolve({ stdout, stderr });
        }
      });
      return promise;
    },
  });
}

function start(request, signal) {
  // The deadline is kept by the ChildProcess, as Node's spawn keeps it.
  const launch = sharedHost().startLaunch(deadlineKeptByCaller(request));
  countHelperLaunch();
  const child = new DropInChildProcess(launch.child, launch.launched, {
    ipc: request.ipc, signal, killSignal: request.killSignal, timeout: request.timeout,
  });
  launch.child.release();
  return child;
}

/**
 * A spawn or fork whose `stdio` names relayed streams of spawnhost's children (which no
 * descriptor stands for): the same call with pipes in their places, made by the caller
 * (through the helper, or falling back as any call does), and `link` to connect them
 * once the child exists (launch/relayed-stdio.js). null for any other call.
 */
function relayedCall(call, args) {
  if (call.fallbackReason) return null;
  const relayed = relayedStdio(call.options.stdio, CARRIED);
  if (!relayed) return null;
  // The caller's options object is the first object after the file that is not the
  // argument list (as the call was shifted); a copy of it (its prototype kept: Node reads
  // some options through it) carries the pipes.
  const given = [...args];
  const at = given.findIndex((arg, index) => index > 0 && arg !== null && typeof arg === "object" && !Array.isArray(arg));
  given[at] = { __proto__: Object.getPrototypeOf(given[at]), ...given[at], stdio: relayed.stdio };
  return {
    args: given,
    link: (child) => {
      linkRelayed(child, relayed.links);
      return child;
    },
  };
}

/**
 * Runs one call with node:child_process's own function. A call it rejects throws its
 * error here, synchronously, and is not counted: nothing was launched.
 */
export function viaNode(name, reason, args) {
  const result = nodeChildProcess[name](...args);
  countFallback(reason);
  return result;
}

// Where no fork channel through the helper can carry handles (Windows: it relays them),
// the drop-in's forks and "ipc" spawns go to node:child_process, whose channel carries
// them: code written for Node sends sockets and servers to its forked children (Node's
// own tests do), and which ones will be sent is not known at fork(). ProcessHost.fork()
// takes them through the helper (docs/drop-in.md).
const HANDLES_REFUSED = forkChannelsRefuseHandles() ? "a fork channel on Windows: the helper relays it, and it cannot carry handles" : null;

function hasIpc(stdio) {
  return HANDLES_REFUSED !== null && Array.isArray(stdio) && stdio.includes("ipc");
}

// node:cluster forks its workers with NODE_UNIQUE_ID in their env and sends them
// handles, which a relayed channel cannot carry: where the helper's forks have no
// channel of Node's own (Windows, a remote host, a worker thread, SPAWNHOST_STREAMS=relay), they go
// to node:child_process.
function clusterWorker(options) {
  const env = options.env ?? process.env;
  return env?.NODE_UNIQUE_ID !== undefined && !ownsForkChannels() ? "a node:cluster worker (NODE_UNIQUE_ID): it is sent handles" : null;
}

// Linux's execve refuses a string of argv or envp as long as MAX_ARG_STRLEN (32 pages)
// with its NUL: E2BIG, which Node's spawn() throws at the call, where the helper could
// only report it later. Such a call goes to node:child_process, and throws as there.
const MAX_ARG_STRLEN = 131072;
const EXEC_REFUSES = "a string of argv or envp too long for execve (spawn() throws E2BIG)";

function execRefuses(request) {
  if (process.platform !== "linux") return false;
  for (const strings of [request.spawnargs, request.envPairs]) {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most strings need no byte count.
    for (const string of strings ?? []) if (string.length * 3 >= MAX_ARG_STRLEN && Buffer.byteLength(string) >= MAX_ARG_STRLEN) return true;
  }
  return false;
}

/** Why no call can use the helper: the shared host runs inline (no helper fits). */
export function helperMissing() {
  return sharedHost().mode === "inline" ? "no helper for this platform" : null;
}

export function notNormalised(error) {
  return `not taken by spawnhost's options layer: ${error.message}`;
}

function emptyOutput(request) {
  return request.encoding === "buffer" ? Buffer.alloc(0) : "";
}
