// execFile/exec for both backends: gathers a HostChild's output and settles the way
// Node's execFile settles (lib/child_process.js: exithandler, errorhandler, kill), so
// the rules for maxBuffer, timeouts, `killed` and error fields live in one place.
import { getSystemErrorName } from "node:util";
import { EXIT_FLAG } from "./protocol-generated.js";
import { asExecError, commandFailed, maxBufferExceeded } from "./errors.js";

/**
 * Runs a normalized exec request to completion.
 * @param {{ launch: Function }} backend
 * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
 */
export function runToCompletion(backend, request) {
  return new Promise((resolve, reject) => {
    let launch;
    try {
      launch = backend.launch(request);
    } catch (error) {
      reject(asExecError(error));
      return;
    }
    collect(launch, request, resolve, reject);
  });
}

/**
 * Gathers a started exec request's output and settles like Node's execFile: `resolve`
 * or `reject` is called from inside the child's `close` (or `error`) listener, which is
 * registered before anyone else's when this runs first. Releases the child's events.
 * @param {{ child: import("./host-child.js").HostChild, launched: Promise<void> }} launch
 * @param {object} request normalized by normalizeExecRequest
 * @param {(result: { stdout: string|Buffer, stderr: string|Buffer }) => void} resolve
 * @param {(error: Error) => void} reject
 * @param {{ kill?: (signal: string) => boolean }} [how] kill: how a timeout or maxBuffer
 *   ends the child (default: the HostChild's kill)
 */
export function collectOutput(launch, request, resolve, reject, { kill } = {}) {
  collect(launch, request, resolve, reject, kill);
}

// `killChild`: how a timeout or maxBuffer ends the child (default: child.kill). The
// drop-in face passes its ChildProcess's kill, which waits for a process that does not
// exist yet instead of cancelling its launch, as Node's child always exists by then.
function collect({ child, launched }, request, resolve, reject, killChild = (signal) => child.kill(signal)) {
  const { cmd, maxBuffer, killSignal } = request;
  const encoding = request.encoding === "buffer" ? null : request.encoding;
  const stdoutChunks = [];
  const stderrChunks = [];
  let stdoutLength = 0;
  let stderrLength = 0;
  let killedByUs = false;
  let timedOut = false;
  let settled = false;
  let failure = null;
  let timer = null;

  const joined = (chunks) => (encoding ? chunks.join("") : Buffer.concat(chunks));

  function settle(code, signal) {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    const stdout = joined(stdoutChunks);
    const stderr = joined(stderrChunks);
    const flags = child._exitFlags ?? 0;
    // The helper ended it for its timeout. Usually this thread's own timer has fired by
    // now too, but not always: after this thread was blocked past the deadline, Node 26
    // can read the child's end before it runs the expired timer.
    if (flags & EXIT_FLAG.timed_out) timedOut = killedByUs = true;
    if (!failure && flags & (EXIT_FLAG.max_buffer_stdout | EXIT_FLAG.max_buffer_stderr)) {
      // The helper stopped relaying at maxBuffer bytes and killed the child.
      failure = maxBufferExceeded(flags & EXIT_FLAG.max_buffer_stdout ? "stdout" : "stderr");
      killedByUs = true;
    }
    if (!failure && code === 0 && signal === null) {
      resolve({ stdout, stderr });
      return;
    }
    // shutdown() ended it: the call fails for that reason, with how the child ended.
    if (!failure && child._hostShutdown) failure = Object.assign(child._hostShutdown, { code, signal });
    if (!failure) {
      failure = commandFailed({
        cmd,
        code: code < 0 ? getSystemErrorName(code) : code,
        signal,
        killed: child.killed || killedByUs,
        stderr,
      });
    }
    failure = asExecError(failure);
    failure.cmd = cmd;
    failure.stdout = stdout;
    failure.stderr = stderr;
    failure.timedOut = timedOut;
    reject(failure);
  }

  function kill() {
    child.stdout?.destroy();
    child.stderr?.destroy();
    killedByUs = true;
    try {
      killChild(killSignal);
    } catch (error) {
      failure = error;
      settle();
    }
  }

  function onError(error) {
    failure = error;
    child.stdout?.destroy();
    child.stderr?.destroy();
    settle();
  }

  // Node's own rule, in both modes: at the deadline the outputs are cut off and the
  // child is sent its kill signal; the call settles at `close`. In helper mode the
  // helper has applied the same deadline (even while this thread was busy) and ends a
  // child that ignores the signal; a child that had already exited, its pipes held by
  // a grandchild, settles now with its own status, as with child_process.
  if (request.timeout > 0) {
    timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.timeout);
  }

  const gather = (stream, chunks, name) => {
    if (!stream) return;
    if (encoding) stream.setEncoding(encoding);
    stream.on("data", (chunk) => {
      if (settled) return;
      // Nothing to count against an Infinity cap, but the JSON check below still runs.
      const length = maxBuffer === Infinity ? 0 : encoding ? Buffer.byteLength(chunk, encoding) : chunk.length;
      const before = name === "stdout" ? stdoutLength : stderrLength;
      if (name === "stdout") stdoutLength += length; else stderrLength += length;
      if (before + length > maxBuffer) {
        chunks.push(chunk.slice(0, maxBuffer - before));
        failure = maxBufferExceeded(name);
        kill();
      } else {
        chunks.push(chunk);
      }
      if (name === "stdout" && request.completeWhen === "stdout-json") checkJsonComplete();
    });
  };

  // completeWhen "stdout-json": some clients print their answer and then linger.
  function checkJsonComplete() {
    if (failure) return;
    const text = encoding ? stdoutChunks.join("") : Buffer.concat(stdoutChunks).toString();
    if (text.trim() === "") return;
    try {
      JSON.parse(text);
    } catch {
      return;
    }
    settled = true;
    clearTimeout(timer);
    resolve({ stdout: joined(stdoutChunks), stderr: joined(stderrChunks) });
    child.stdout?.destroy();
    child.stderr?.destroy();
    try { child.kill(killSignal); } catch { /* already gone */ }
  }

  gather(child.stdout, stdoutChunks, "stdout");
  gather(child.stderr, stderrChunks, "stderr");
  child.on("close", (code, signal) => settle(code, signal));
  child.on("error", onError);
  // A launch that failed the way child_process.spawn() throws (ENOTDIR, E2BIG, EPERM)
  // or a helper that went away: Node's execFile throws before it knows cmd or output.
  launched.catch((error) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    reject(asExecError(error));
  });

  if (request.input !== undefined && child.stdin) {
    // A child that exits without reading its input makes the write fail with EPIPE;
    // the exit status is what the caller wants, as with child_process's `input`.
    child.stdin.on("error", () => {});
    child.stdin.end(request.input);
  }
  child._release();
}
