// execFile/exec for both backends: gathers a HostChild's output and settles the way
// Node's execFile settles (lib/child_process.js: exithandler, errorhandler, kill), so
// the rules for maxBuffer, timeouts, `killed` and error fields live in one place.
import { getSystemErrorName } from "node:util";
import { EXIT_FLAG } from "../protocol/generated.js";
import { asExecError, commandFailed, maxBufferExceeded } from "../core/errors.js";
import { hasDeadline, startCallTimer } from "../core/deadline.js";

/**
 * Runs a normalized exec request to completion.
 * @param {{ launch: Function }} backend
 * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
 */
export function runToCompletion(backend, request) {
  // The common call (no timeout, signal, input or completeWhen) has a lean path in
  // helper mode: no child object and no streams (launch/exec-call.js).
  if (backend.execute && isPlainExec(request)) return backend.execute(request);
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

/** True for an exec request the helper backend may run on its lean path. */
export function isPlainExec(request) {
  return !hasDeadline(request) && request.signal === undefined && request.input === undefined && request.completeWhen === undefined;
}

/**
 * How an exec call ends, by Node's execFile rules, from what is known once its child
 * closed: `{ value: { stdout, stderr } }` or `{ error }`.
 * @param {object} request normalized by normalizeExecRequest
 * @param {{ code: number|null|undefined, signal: string|null|undefined, flags: number, failure: Error|null,
 *   timedOut: boolean, hostShutdown?: Error, killed: boolean, stdout: string|Buffer, stderr: string|Buffer }} end
 *   failure: what already failed the call (maxBuffer, an error event); hostShutdown: shutdown() ended the child
 */
export function execOutcome(request, { code, signal, flags, failure, timedOut, hostShutdown, killed, stdout, stderr }) {
  // The helper ended it for its timeout. Usually this thread's own timer has fired by
  // now too, but not always: after this thread was blocked past the deadline, Node 26
  // can read the child's end before it runs the expired timer.
  if (flags & EXIT_FLAG.timed_out) timedOut = killed = true;
  if (!failure && flags & (EXIT_FLAG.max_buffer_stdout | EXIT_FLAG.max_buffer_stderr)) {
    // The helper stopped relaying at maxBuffer bytes and killed the child.
    failure = maxBufferExceeded(flags & EXIT_FLAG.max_buffer_stdout ? "stdout" : "stderr");
    killed = true;
  }
  if (!failure && code === 0 && signal === null) return { value: { stdout, stderr } };
  // shutdown() ended it: the call fails for that reason, with how the child ended.
  if (!failure && hostShutdown) failure = Object.assign(hostShutdown, { code, signal });
  if (!failure) {
    failure = commandFailed({
      cmd: request.cmd, code: code < 0 ? getSystemErrorName(code) : code, signal, killed, stderr,
    });
  }
  const error = asExecError(failure);
  error.cmd = request.cmd;
  error.stdout = stdout;
  error.stderr = stderr;
  error.timedOut = timedOut;
  return { error };
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
 * @returns {{ close: (code: number|null, signal: string|null) => void, fail: (error: Error) => void }}
 *   the listeners it added: whoever fronts the child can give them its own events too
 */
export function collectOutput(launch, request, resolve, reject, { kill } = {}) {
  return collect(launch, request, resolve, reject, kill);
}

// `killChild`: how a timeout or maxBuffer ends the child (default: child.kill). The
// drop-in face passes its ChildProcess's kill, which waits for a process that does not
// exist yet instead of cancelling its launch, as Node's child always exists by then.
function collect({ child, launched }, request, resolve, reject, killChild = (signal) => child.kill(signal)) {
  const { killSignal } = request;
  const encoding = request.encoding === "buffer" ? null : request.encoding;
  const stdout = new ExecOutput(request, () => child.stdout?.readableEncoding ?? encoding);
  const stderr = new ExecOutput(request, () => child.stderr?.readableEncoding ?? encoding);
  let killedByUs = false;
  let timedOut = false;
  let settled = false;
  let failure = null;
  let timer = null;

  function settle(code, signal) {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    const outcome = execOutcome(request, {
      code, signal, flags: child._exitFlags ?? 0, failure, timedOut, hostShutdown: child._hostShutdown,
      killed: child.killed || killedByUs, stdout: stdout.joined(), stderr: stderr.joined(),
    });
    if (outcome.error) reject(outcome.error);
    else resolve(outcome.value);
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
  timer = startCallTimer(request, () => {
    timedOut = true;
    kill();
  });

  const gather = (stream, output, name) => {
    if (!stream) return;
    if (encoding) stream.setEncoding(encoding);
    stream.on("data", (chunk) => {
      if (settled) return;
      if (!output.add(chunk)) {
        failure = maxBufferExceeded(name);
        kill();
      }
      if (output === stdout && request.completeWhen === "stdout-json") checkJsonComplete();
    });
  };

  // completeWhen "stdout-json": some clients print their answer and then linger.
  function checkJsonComplete() {
    if (failure) return;
    const text = encoding ? stdout.joined() : stdout.joined().toString();
    if (text.trim() === "") return;
    try {
      JSON.parse(text);
    } catch {
      return;
    }
    settled = true;
    clearTimeout(timer);
    resolve({ stdout: stdout.joined(), stderr: stderr.joined() });
    child.stdout?.destroy();
    child.stderr?.destroy();
    try { child.kill(killSignal); } catch { /* already gone */ }
  }

  gather(child.stdout, stdout, "stdout");
  gather(child.stderr, stderr, "stderr");
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
  child.release();
  return { close: settle, fail: onError };
}

/**
 * One output of an exec call, kept up to maxBuffer the way Node's execFile keeps it:
 * counted in bytes of the encoding, a chunk that crosses the cap is cut to fit (a
 * string by its length: Node keeps that many characters, whole ones).
 */
export class ExecOutput {
  #chunks = [];
  #length = 0;
  #maxBuffer;
  #encodingOf;

  /**
   * @param {{ maxBuffer: number, encoding: string }} request
   * @param {() => string|null} [encodingOf] the encoding the chunks come in now (Node
   *   reads the stream's readableEncoding: a caller may setEncoding() on an output of
   *   a call without one); default the request's
   */
  constructor({ maxBuffer, encoding }, encodingOf) {
    this.#maxBuffer = maxBuffer;
    const requested = encoding === "buffer" ? null : encoding;
    this.#encodingOf = encodingOf ?? (() => requested);
  }

  /**
   * Keeps a chunk: a string when the output has an encoding, else a Buffer.
   * @returns {boolean} false when the chunk crossed maxBuffer (the part that fits is kept)
   */
  add(chunk) {
    // Nothing to count against an Infinity cap.
    if (this.#maxBuffer === Infinity) {
      this.#chunks.push(chunk);
      return true;
    }
    const before = this.#length;
    const encoding = this.#encodingOf();
    this.#length += encoding ? Buffer.byteLength(chunk, encoding) : chunk.length;
    if (this.#length > this.#maxBuffer) {
      this.#chunks.push(chunk.slice(0, this.#maxBuffer - before));
      return false;
    }
    this.#chunks.push(chunk);
    return true;
  }

  /** Everything kept: a string when the output has an encoding, else a Buffer. */
  joined() {
    return this.#encodingOf() ? this.#chunks.join("") : Buffer.concat(this.#chunks);
  }
}
