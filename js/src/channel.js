// The channel to one helper process: starts it (the only process this thread creates
// itself), checks its hello, frames messages both ways, hands out request ids, keeps
// the helper unref'd while nothing is in flight, and owns the single path that settles
// everything when the helper goes away.
import { spawn } from "node:child_process";
import { fstatSync } from "node:fs";
import { createRequire } from "node:module";
import { FrameReader, encodeBytesHead, encodeFrame } from "./protocol.js";
import { PROTOCOL_VERSION } from "./protocol-generated.js";
import { HelperVersionError, HostShutdownError, ProtocolError, helperExited } from "./errors.js";

const PACKAGE_VERSION = createRequire(import.meta.url)("../package.json").version;
const STDERR_TAIL_BYTES = 4096;
// After stdout ends or a write fails, wait this long for the exit status to report it.
const EXIT_STATUS_WAIT_MS = 250;
const MAX_ID = 0xffffffff;

/**
 * What a request or child registers to hear about its id.
 * @typedef {object} ChannelHandler
 * @property {(name: string, values: unknown[]) => void} onMessage
 * @property {(error: Error) => void} onGone the helper went away; nothing more will come
 */

/** One running helper and the conversation with it. */
export class Channel {
  #helperPath;
  #process;
  #reader = new FrameReader("to_node");
  /** @type {Map<number, ChannelHandler>} */
  #handlers = new Map();
  #nextId = 1;
  #refs = 0;
  #hello;
  #goingAway = false;
  #gone = null;
  #shutdownRequested = false;
  #holdForShutdown = false;
  #stderrTail = "";
  #closed;
  #corked = false;
  #graceMs;

  /**
   * Starts the helper at once; `ready` settles after its hello.
   * @param {{ helperPath: string, launchThreads?: number, graceMs?: number }} options
   */
  constructor({ helperPath, launchThreads, graceMs = 5000 }) {
    this.#graceMs = graceMs;
    this.#helperPath = helperPath;
    // The helper's own fds 0-2 carry the protocol, so Node's fds 0-2 reach it as 3-5,
    // for children whose stdio is "inherit".
    const args = ["--inherit-fds", "3,4,5"];
    if (launchThreads) args.push("--launch-threads", String(launchThreads));
    // Also the helper's grace when Node exits or dies and its stdin reaches EOF.
    args.push("--grace-ms", String(graceMs));
    const inherited = [0, 1, 2].map((fd) => (isOpen(fd) ? fd : "ignore"));
    this.#hello = deferred();
    this.#hello.promise.catch(() => {}); // observed by whoever awaits ready
    this.#process = spawn(helperPath, args, { stdio: ["pipe", "pipe", "pipe", ...inherited], windowsHide: true });
    const { stdin, stdout, stderr } = this.#process;
    stdout.on("data", (chunk) => this.#receive(chunk));
    stdout.on("end", () => this.#onStdoutEnd());
    stderr.setEncoding("utf8");
    stderr.on("data", (text) => this.#keepStderr(text));
    stdin.on("error", (error) => this.#goAway(`writing to it failed: ${error.message}`));
    this.#process.on("error", (error) => this.#goAway(`it could not be run: ${error.message}`));
    this.#process.on("exit", () => this.#goAway("it exited"));
    this.#closed = new Promise((resolve) => this.#process.once("close", resolve));
    this.#applyRef();
  }

  /** Resolves with the helper's pid once its hello matched; rejects otherwise. */
  get ready() {
    return this.#hello.promise;
  }

  /** True from the moment the helper is known to be going away. */
  get closing() {
    return this.#goingAway;
  }

  /** The error everything got when the helper went away; null while it runs. */
  get gone() {
    return this.#gone;
  }

  /** Registers a handler under a fresh id (never 0, unique among live ids). */
  register(handler) {
    if (this.#gone) throw this.#gone;
    let id = this.#nextId;
    while (this.#handlers.has(id)) id = id >= MAX_ID ? 1 : id + 1;
    this.#nextId = id >= MAX_ID ? 1 : id + 1;
    this.#handlers.set(id, handler);
    return id;
  }

  /** The id is finished: the helper said all it will say about it. */
  release(id) {
    this.#handlers.delete(id);
  }

  /** Sends one message; throws the channel's error when the helper is gone. */
  send(name, fields) {
    if (this.#gone) throw this.#gone;
    // After shutdown() the helper's stdin is closed and it is ending every child on
    // its own; what the settling children still say (close_output, credit) is moot,
    // and writing it would fail and cut the helper's grace period short.
    if (this.#shutdownRequested && this.#process.stdin.writableEnded) return;
    this.#write([encodeFrame(name, fields)]);
  }

  /**
   * Sends a write/send message whose payload goes to the pipe as it is, uncopied.
   * `onFlushed` runs once Node has handed the payload to the kernel: until then the
   * caller must not reuse the buffer.
   */
  sendBytes(name, id, bytes, onFlushed) {
    if (this.#gone) throw this.#gone;
    if (this.#shutdownRequested && this.#process.stdin.writableEnded) {
      process.nextTick(onFlushed);
      return;
    }
    this.#write([encodeBytesHead(name, id, bytes.length), bytes], onFlushed);
  }

  #write(parts, onFlushed) {
    try {
      // Frames sent in one tick (a burst of launches, a big stdin write) leave in one
      // write to the pipe.
      const { stdin } = this.#process;
      if (!this.#corked) {
        this.#corked = true;
        stdin.cork();
        process.nextTick(() => {
          this.#corked = false;
          stdin.uncork();
        });
      }
      for (let i = 0; i < parts.length; i++) stdin.write(parts[i], i === parts.length - 1 ? onFlushed : undefined);
    } catch (error) {
      this.#goAway(`writing to it failed: ${error.message}`);
      throw error;
    }
  }

  /** Something is in flight: keep Node alive for the helper's answers. */
  ref() {
    if (this.#gone) return;
    this.#refs++;
    if (this.#refs === 1) this.#applyRef();
  }

  /** One thing in flight fewer; at zero the helper stops keeping Node alive. */
  unref() {
    if (this.#gone) return;
    this.#refs--;
    if (this.#refs === 0) this.#applyRef();
  }

  /**
   * Asks the helper to end its children and exit; resolves once it has. Pending
   * requests reject with a HostShutdownError.
   */
  async shutdown(graceMs = this.#graceMs) {
    if (!this.#gone) {
      this.#shutdownRequested = true;
      // Calls still pending fail now with a clear reason, not with whatever the
      // helper's ending does to their children.
      this.#settleHandlers(new HostShutdownError("the ProcessHost was shut down before this call completed"));
      // Someone awaits the helper's end: keep Node alive until it has ended.
      this.#holdForShutdown = true;
      this.#applyRef();
      try {
        this.send("shutdown", [graceMs]);
        this.#process.stdin.end();
      } catch { /* already going away */ }
    }
    await this.#closed;
    this.#holdForShutdown = false;
  }

  #applyRef() {
    const method = this.#refs > 0 || this.#holdForShutdown ? "ref" : "unref";
    this.#process[method]();
    for (const stream of [this.#process.stdin, this.#process.stdout, this.#process.stderr]) stream?.[method]?.();
  }

  #receive(chunk) {
    let messages;
    try {
      messages = this.#reader.push(chunk);
    } catch (error) {
      this.#goAway(`it broke the protocol: ${error.message}`, error);
      return;
    }
    for (const message of messages) this.#dispatch(message);
  }

  #onStdoutEnd() {
    try {
      this.#reader.end();
      this.#goAway("its stdout ended");
    } catch (error) {
      this.#goAway(`its stdout ended inside a frame: ${error.message}`, error);
    }
  }

  #dispatch({ name, values }) {
    if (name === "hello") return this.#checkHello(values);
    if (name === "error") {
      const [id, fatal, message] = values;
      // An error about an id we no longer hold is a request that crossed the child's
      // last message on the wire (a late credit): nothing to report.
      if (id !== null && this.#handlers.has(id)) this.#handlers.get(id).onMessage(name, values);
      else if (id === null && !fatal) process.emitWarning(`spawnhost helper: ${message}`, { type: "SpawnhostWarning" });
      if (fatal) this.#goAway(`it reported a fatal error: ${message}`);
      return;
    }
    // Messages for an id nobody holds (a late `written` after exit) are dropped.
    this.#handlers.get(values[0])?.onMessage(name, values);
  }

  #checkHello([protocol, version, pid]) {
    if (protocol !== PROTOCOL_VERSION || version !== PACKAGE_VERSION) {
      const error = new HelperVersionError(
        `spawnhost helper ${this.#helperPath} speaks protocol ${protocol} of version ${version}, ` +
        `but this package (spawnhost ${PACKAGE_VERSION}) needs protocol ${PROTOCOL_VERSION} of version ${PACKAGE_VERSION}; ` +
        "install the helper that belongs to this package version",
      );
      this.#goAway("its version does not match", error);
      return;
    }
    this.#hello.resolve(pid);
  }

  #settleHandlers(error) {
    const handlers = [...this.#handlers.values()];
    this.#handlers.clear();
    for (const handler of handlers) handler.onGone(error);
  }

  #keepStderr(text) {
    if (process.env.SPAWNHOST_DEBUG) process.stderr.write(text);
    this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_BYTES);
  }

  // The one "helper went away" path. Waits briefly for the exit status so the error
  // can say how the helper ended, then settles every handler exactly once.
  #goAway(reason, cause) {
    if (this.#goingAway) return;
    this.#goingAway = true;
    const finish = () => this.#settleEverything(reason, cause);
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) {
      // Let stderr's last chunk arrive: it usually says why.
      setImmediate(finish);
      return;
    }
    const timer = setTimeout(finish, EXIT_STATUS_WAIT_MS);
    timer.unref();
    this.#process.once("exit", () => {
      clearTimeout(timer);
      setImmediate(finish);
    });
  }

  #settleEverything(reason, cause) {
    if (this.#gone) return;
    const { exitCode, signalCode } = this.#process;
    let error;
    if (this.#shutdownRequested) error = new HostShutdownError("the ProcessHost was shut down before this call completed");
    else if (cause instanceof HelperVersionError) error = cause;
    else {
      error = helperExited({
        helperPath: this.#helperPath, reason, exitCode, signal: signalCode, stderrTail: lastLines(this.#stderrTail, 10),
      });
      if (cause instanceof ProtocolError) error.cause = cause;
    }
    this.#gone = error;
    if (exitCode === null && signalCode === null) this.#process.kill("SIGKILL");
    this.#hello.reject(error);
    this.#settleHandlers(error);
    this.#refs = 0;
    this.#applyRef();
  }
}

function isOpen(fd) {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}

function lastLines(text, count) {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}

function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
