// spawnSync's core: runs one child to completion through the helper's sync channel
// while this thread waits, and returns what child_process.spawnSync's binding returns
// (lib/child_process.js then shapes it). Node's own spawnSync would fork this process;
// here only the helper creates processes, so the cost does not grow with our memory.
// The public face (validation, encoding, `output`, thrown errors) sits on top of this.
import { ProtocolError, errnoOf } from "../core/errors.js";
import { BlockingDeadline } from "../core/deadline.js";
import { EXIT_FLAG } from "../protocol/generated.js";
import { spawnRequestOptions } from "../protocol/spawn-request.js";
import { nodeChildProcess } from "../core/node-child-process.js";

// node:child_process's own spawnSync, read once at load: spawnhost/register replaces the
// module's functions later, and the fallback below must not call back into the face.
const nodeSpawnSync = nodeChildProcess.spawnSync;

/**
 * A spawnSync request, normalized by the caller (shell already applied).
 * @typedef {object} SyncRequest
 * @property {string} file the program (Node's options.file)
 * @property {string[]} args its arguments, without argv[0]
 * @property {string} [argv0] argv[0] (default: file)
 * @property {string[]} envPairs the complete environment as KEY=VALUE
 * @property {string} [cwd]
 * @property {Array<"pipe"|"ignore"|"inherit">} stdio three entries
 * @property {Buffer} [input] written to stdin (when stdio[0] is "pipe"), then stdin ends
 * @property {number} [timeout] ms; 0 or absent: none
 * @property {string} [killSignal] name, default "SIGTERM"
 * @property {number} [maxBuffer] bytes of stdout and stderr together; 0, Infinity or absent: none
 * @property {number} [uid]
 * @property {number} [gid]
 * @property {boolean} [windowsHide]
 * @property {boolean} [windowsVerbatimArguments]
 */

/**
 * What spawnSync's binding reports, before lib/child_process.js shapes it.
 * @typedef {object} SyncResult
 * @property {number} pid 0 when no process was created
 * @property {Buffer|null} stdout null when not piped or when no process was created
 * @property {Buffer|null} stderr
 * @property {number|null} status
 * @property {string|null} signal
 * @property {true} [viaNode] node:child_process ran it (no sync channel, or inline mode)
 * @property {undefined|{ errno: number, code: string, syscall: string, path: string, spawnargs: string[] }} error
 *   as Node builds it: `syscall` is "spawnSync <file>"; ETIMEDOUT when the timeout
 *   killed the child, ENOBUFS when its output passed maxBuffer, EPIPE when it did not
 *   read all of `input`, or why it could not start (ENOENT, EACCES...)
 */

/**
 * Runs `request` through the helper's sync channel, blocking this thread until the
 * child has exited and its output has ended.
 * @param {import("./channel.js").SyncChannel} sync an opened sync channel
 * @param {SyncRequest} request
 * @returns {SyncResult}
 */
export function spawnSyncThroughHelper(sync, request) {
  const id = sync.nextId();
  const killSignal = request.killSignal ?? "SIGTERM";
  const piped = request.stdio.map((kind) => kind === "pipe");
  sync.send("spawn", [id, request.file, request.args, spawnRequestOptions(helperRequest(request, killSignal))]);
  const inputBytes = piped[0] ? request.input?.length ?? 0 : 0;
  if (piped[0]) {
    if (inputBytes > 0) sync.sendBytes("write", id, request.input);
    sync.send("end", [id]);
  }

  const output = [null, piped[1] ? [] : null, piped[2] ? [] : null];
  let pid = 0;
  let started = false;
  let exit = null;
  // Node keeps the first of its own errors (timeout, maxBuffer), else a pipe error.
  let limitError = null;
  let pipeError = null;
  // What the helper owes about the child once it exists: `exit`, and `eof` per output.
  let owed = 1 + (piped[1] ? 1 : 0) + (piped[2] ? 1 : 0);
  // Input is written while the child runs and may still be failing after its exit:
  // every byte ends acknowledged (`written`) or in an error, and Node reports EPIPE
  // when the child left some unread, so the call waits for that too.
  let inputAcknowledged = 0;
  const inputSettled = () => inputAcknowledged >= inputBytes || pipeError !== null;
  // The helper must answer soon after the call's own timeout (it kills the child then):
  // one that does not (stopped, say) cannot hold the call past it (timedOutHere). The
  // timeout counts from the child's start, as Node's timer starts once uv_spawn returned.
  // Before it, the helper may be slow in creating the child (CreateProcessW under
  // antivirus, or wine at a high load): past the timeout it is given half its liveness
  // limit, not LATE_ANSWER_MS, to answer a ping, so a slow launch is not ETIMEDOUT
  // (Node gives ENOENT for a missing program whatever the timeout), while a helper
  // stopped before it started the child still cannot hold the call much longer.
  const deadline = new BlockingDeadline(request);
  const wait = { deadline: deadline.at, lateAnswerMs: Infinity };
  while (owed > 0 || (started && !inputSettled())) {
    const message = sync.receive(wait);
    if (message === null) return timedOutHere(request, killSignal, pid, exit, output);
    const { name, values } = message;
    // Late words about an earlier call (an error for a request that crossed its end).
    if (values[0] !== id) continue;
    switch (name) {
      case "spawned":
        pid = values[1];
        started = true;
        deadline.childStarted();
        wait.deadline = deadline.at;
        wait.lateAnswerMs = undefined;
        break;
      case "spawn_error":
        return startFailed(request, values[1]);
      case "data":
        output[values[1]]?.push(values[2]);
        break;
      case "eof":
        owed--;
        break;
      case "exit":
        exit = { status: values[2] === null ? values[1] : null, signal: values[2], flags: values[3] };
        // The helper ends the child for either limit: the cap, when it was passed, came
        // first (past it no output is read that could pass it later), and Node reports
        // its first error.
        if (exit.flags & EXIT_FLAG.max_output) limitError ??= "ENOBUFS";
        if (exit.flags & EXIT_FLAG.timed_out) limitError ??= "ETIMEDOUT";
        owed--;
        break;
      case "written":
        inputAcknowledged += values[1];
        break;
      case "stdin_error":
        pipeError ??= values[1];
        break;
      case "error":
        // Refused before it started: the helper will say nothing more about this id.
        if (!started) throw new ProtocolError("rejected", `the helper rejected a synchronous spawn: ${values[2]}`);
        // Otherwise input that came after the child was gone ("unknown child id"): it
        // could not be written, which Node reports as EPIPE.
        if (!inputSettled()) pipeError = "EPIPE";
        break;
    }
  }
  const errorCode = limitError ?? pipeError;
  return {
    pid,
    stdout: output[1] && Buffer.concat(output[1]),
    stderr: output[2] && Buffer.concat(output[2]),
    status: exit.status,
    signal: exit.signal,
    error: errorCode === null ? undefined : syncError(errorCode, request),
  };
}

/**
 * Blocks until the helper knows what became of launch `id` of the main channel, and
 * returns its pid (undefined when it failed). The spawn must reach the helper first:
 * frames still in Node's hands are flushed to the socket now; when the socket is too
 * full to take them, the helper cannot answer yet, and neither can we (undefined).
 * @param {import("../helper/channel.js").Channel} channel
 * @param {number} id
 * @returns {number|undefined}
 */
export function awaitSpawnedPid(channel, id) {
  const sync = channel.syncChannel();
  if (!sync || !channel.flushNow()) return undefined;
  sync.send("await_spawn", [id]);
  for (;;) {
    const { name, values } = sync.receive();
    if (name === "spawn_known" && values[0] === id) return values[1] ?? undefined;
  }
}

/**
 * The same call through node:child_process, for where the helper has no sync channel
 * (the Windows helper): this forks Node, with the cost that brings.
 * @param {SyncRequest} request
 * @returns {SyncResult}
 */
export function spawnSyncInline(request) {
  const result = nodeSpawnSync(request.file, request.args, {
    argv0: request.argv0,
    env: Object.fromEntries(request.envPairs.map((pair) => {
      const at = pair.indexOf("=", 1);
      return at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
    })),
    cwd: request.cwd,
    stdio: request.stdio,
    input: request.stdio[0] === "pipe" ? request.input : undefined,
    timeout: request.timeout,
    killSignal: request.killSignal,
    maxBuffer: request.maxBuffer ?? Infinity,
    uid: request.uid,
    gid: request.gid,
    windowsHide: request.windowsHide,
    windowsVerbatimArguments: request.windowsVerbatimArguments,
  });
  const error = result.error && {
    errno: result.error.errno, code: result.error.code, syscall: result.error.syscall,
    path: result.error.path, spawnargs: result.error.spawnargs,
  };
  return {
    pid: result.pid, stdout: result.stdout ?? null, stderr: result.stderr ?? null,
    status: result.status, signal: result.signal, error, viaNode: true,
  };
}

// The shape spawnRequestOptions reads (a request from core/options.js). kind "sync": no
// credit (the helper relays output without round trips), and maxBuffer as max_output
// (Node's cap counts both streams together; the helper kills as it reads past it).
// No prototype, as core/options.js's requests: the fields it lacks (detached, ipc, remote)
// are not read from Object.prototype.
function helperRequest(request, killSignal) {
  return {
    __proto__: null,
    kind: "sync",
    platform: process.platform,
    spawnfile: request.file,
    spawnargs: [request.argv0 ?? request.file, ...request.args],
    envPairs: request.envPairs,
    cwd: request.cwd,
    stdio: request.stdio,
    timeout: request.timeout ?? 0,
    killSignal,
    maxBuffer: request.maxBuffer,
    uid: request.uid,
    gid: request.gid,
    windowsHide: request.windowsHide,
    windowsVerbatimArguments: request.windowsVerbatimArguments,
  };
}

// The call's timeout passed and the helper does not answer: the call ends as Node's
// does at its timeout. Node's thread ends the child with killSignal itself (the helper
// cannot reap it while it does not run, so its pid is not reused meanwhile) and throws
// ETIMEDOUT with the output that came; the helper is left to the liveness rules.
function timedOutHere(request, killSignal, pid, exit, output) {
  if (pid > 0 && exit === null) {
    try {
      process.kill(pid, killSignal);
    } catch { /* gone already, or not ours to signal: nothing more can be done from here */ }
  }
  return {
    pid,
    stdout: output[1] && Buffer.concat(output[1]),
    stderr: output[2] && Buffer.concat(output[2]),
    status: exit?.status ?? null,
    signal: exit ? exit.signal : killSignal,
    error: syncError("ETIMEDOUT", request),
  };
}

// No process was created: Node reports pid 0 and no output at all.
function startFailed(request, code) {
  return { pid: 0, stdout: null, stderr: null, status: null, signal: null, error: syncError(code, request) };
}

function syncError(code, request) {
  return { errno: errnoOf(code), code, syscall: `spawnSync ${request.file}`, path: request.file, spawnargs: request.args };
}
