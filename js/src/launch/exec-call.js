// The lean execFile/exec path of helper mode: a call that needs no child object (no
// timeout, signal, input or completeWhen; see isPlainExec) is one id on the channel
// and two output buffers, settled when the helper has said all it owes about the id.
// No HostChild, no streams, no extra loop turn: this is what lets one thread launch
// tens of thousands of programs a second. The rules for how the call ends
// are execOutcome's, shared with the full path in launch/exec-run.js. The helper
// answers it with one `result` frame (spawn option `result`): the exit, the
// timings and the output, which comes as data frames before it only when it is larger
// than the frame holds. One frame is one wake-up of this thread per launch.
import { AsyncResource } from "node:async_hooks";
import { StringDecoder } from "node:string_decoder";
import { ExecOutput, execOutcome } from "./exec-run.js";
import { encodeRequestFrame } from "../protocol/spawn-frame.js";
import { MAX_DATA_CHUNK } from "../protocol/generated.js";
import { ProtocolError, asExecError, maxBufferExceeded, spawnFailure } from "../core/errors.js";

/**
 * How many bytes of each output the helper may hold for the result frame: never more
 * than maxBuffer can take as ExecOutput counts them (a byte decodes to at most three
 * bytes' worth, U+FFFD), so an output that crosses maxBuffer always comes as data
 * frames, and is cut off and its child killed as before.
 */
export function resultHold({ maxBuffer, encoding }) {
  return Math.min(MAX_DATA_CHUNK, Math.floor(maxBuffer / (encoding === "buffer" ? 1 : 3)));
}

/**
 * Runs a plain exec request on `channel`.
 * @param {import("../helper/channel.js").Channel} channel
 * @param {object} request normalized by normalizeExecRequest, isPlainExec
 * @param {{ onLaunch?: Function }} hooks
 * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
 */
export function runExecCall(channel, request, hooks) {
  return new Promise((resolve, reject) => {
    new ExecCall(channel, request, hooks, resolve, reject);
  });
}

class ExecCall {
  #channel;
  #request;
  #onLaunch;
  #resolve;
  #reject;
  #id = 0;
  #running = false;
  #settled = false;
  // The helper owes exit and one eof per output before the id is free.
  #owed = 3;
  #stdout;
  #stderr;
  #stdoutDecoder;
  #stderrDecoder;
  #code;
  #signal;
  #flags = 0;
  #failure = null;
  #killed = false;
  #hostShutdown;
  // The calling context, for the helper's messages (see HelperLaunch).
  scope = new AsyncResource("SPAWNHOST_EXEC");

  constructor(channel, request, { onLaunch }, resolve, reject) {
    this.#channel = channel;
    this.#request = request;
    this.#onLaunch = onLaunch;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#stdout = new ExecOutput(request);
    this.#stderr = new ExecOutput(request);
    channel.ref();
    // A ready helper gets the request in this tick; a starting one after its hello.
    if (channel.helperPid !== 0) this.#send();
    else channel.ready.then(() => this.#send(), (error) => this.#fail(error));
  }

  #send() {
    if (this.#settled) return;
    try {
      // The call is its own handler (onMessage, onGone, onShutdown, scope): no closures per launch.
      this.#id = this.#channel.register(this);
    } catch (error) {
      this.#fail(error);
      return;
    }
    try {
      this.#channel.sendFrame(encodeRequestFrame(this.#id, this.#request, { result: resultHold(this.#request) }));
    } catch (error) {
      this.#channel.release(this.#id);
      // Arguments and environment too big for one frame: exec would refuse them too.
      if (error instanceof ProtocolError && error.category === "oversized") this.#spawnError("E2BIG");
      else this.#fail(error);
    }
  }

  onMessage(name, values) {
    switch (name) {
      case "result": return this.#result(values);
      case "spawned": return this.#spawned(values);
      case "spawn_error":
        this.#channel.release(this.#id);
        // shutdown() cancelled the launch before it started: the call fails for that.
        if (this.#hostShutdown) return this.#fail(this.#hostShutdown);
        return this.#spawnError(values[1]);
      case "data": return this.#data(values[1], values[2]);
      case "eof": return this.#eof(values[1]);
      case "exit":
        this.#code = values[2] === null ? values[1] : null;
        this.#signal = values[2];
        this.#flags = values[3];
        return this.#paid();
      case "error": return this.#rejected(values[2]);
    }
  }

  // Everything at once: the launch, the output held for this frame, both ends, the exit.
  #result([, status, signal, flags, stdout, stderr, pid, createUs, queuedUs]) {
    this.#spawned([, pid, createUs, queuedUs]);
    if (stdout.byteLength > 0) this.#data(1, stdout);
    if (stderr.byteLength > 0) this.#data(2, stderr);
    this.#code = signal === null ? status : null;
    this.#signal = signal;
    this.#flags = flags;
    this.#eof(1);
    this.#eof(2);
    this.#paid();
  }

  #spawned([, , createUs, queuedUs]) {
    this.#running = true;
    this.#onLaunch?.({ kind: "exec", file: this.#request.spawnfile, createMs: createUs / 1000, queuedMs: queuedUs / 1000 });
  }

  // As child_process: some failures are thrown by spawn() (the call rejects with just
  // the errno error), others are the child's `error` event (with cmd and empty output).
  #spawnError(code) {
    const { error, emitted } = spawnFailure(code, this.#request.spawnfile, this.#request.spawnargs);
    if (emitted) this.#end(error);
    else this.#fail(error);
  }

  #data(fd, bytes) {
    if (this.#failure) return;
    const output = fd === 1 ? this.#stdout : this.#stderr;
    const decoder = this.#decoder(fd);
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const chunk = decoder ? decoder.write(buffer) : buffer;
    if (chunk.length > 0 && !output.add(chunk)) this.#overflow(fd);
  }

  // As execFile's setEncoding: characters split across chunks are joined. Made at the
  // first output, not per call: most launches of a busy host have none.
  #decoder(fd) {
    if (this.#request.encoding === "buffer") return undefined;
    if (fd === 1) return (this.#stdoutDecoder ??= new StringDecoder(this.#request.encoding));
    return (this.#stderrDecoder ??= new StringDecoder(this.#request.encoding));
  }

  #eof(fd) {
    const decoder = fd === 1 ? this.#stdoutDecoder : this.#stderrDecoder;
    const rest = decoder?.end();
    if (rest && !this.#failure && !(fd === 1 ? this.#stdout : this.#stderr).add(rest)) this.#overflow(fd);
    this.#paid();
  }

  // Past maxBuffer: what fits is kept, both outputs are cut off and the child is sent
  // its kill signal, as execFile does; the call still settles once the helper is done.
  #overflow(fd) {
    this.#failure = maxBufferExceeded(fd === 1 ? "stdout" : "stderr");
    this.#killed = true;
    try {
      this.#channel.send("kill", [this.#id, this.#request.killSignal]);
      this.#channel.send("close_output", [this.#id, 1]);
      this.#channel.send("close_output", [this.#id, 2]);
    } catch { /* the helper is gone: onGone settles */ }
  }

  #paid() {
    if (--this.#owed > 0) return;
    this.#channel.release(this.#id);
    this.#end(null);
  }

  #rejected(message) {
    const error = new ProtocolError("rejected", `the helper rejected a request for this child: ${message}`);
    this.#channel.release(this.#id);
    if (this.#running) this.#end(error);
    else this.#fail(error);
  }

  // shutdown() began: a running child stays to hear its real end from the helper. The
  // result frame is the first news of a launch, so every launch the helper holds stays:
  // one that had not started is answered with spawn_error and fails as shutdown's.
  onShutdown(error) {
    this.#hostShutdown = error;
    return true;
  }

  onGone(error) {
    if (!this.#running) this.#fail(this.#hostShutdown ?? error);
    // Its end is known (a grandchild may hold its pipes): no error, the output so far.
    else if (this.#code !== undefined) this.#end(null);
    else this.#end(error);
  }

  // The call ends as execFile does at `close` (or at the child's `error` event, when
  // `error` is given).
  #end(error) {
    if (this.#settled) return;
    this.#settled = true;
    this.#channel.unref();
    const outcome = execOutcome(this.#request, {
      code: error ? undefined : this.#code,
      signal: error ? undefined : this.#signal,
      flags: this.#flags,
      failure: error ?? this.#failure,
      timedOut: false,
      hostShutdown: this.#hostShutdown,
      killed: this.#killed,
      stdout: this.#stdout.joined(),
      stderr: this.#stderr.joined(),
    });
    if (outcome.error) this.#reject(outcome.error);
    else this.#resolve(outcome.value);
  }

  // The launch itself failed, as child_process.spawn() throws: no cmd, no output.
  #fail(error) {
    if (this.#settled) return;
    this.#settled = true;
    this.#channel.unref();
    this.#reject(asExecError(error));
  }
}
