// The channel to one helper process: starts it (helper/process.js), checks its hello,
// frames messages both ways (helper/frame-writer.js out, helper/frame-dispatch.js in), hands out
// request ids (helper/live-ids.js), keeps the helper unref'd while nothing is in
// flight, and owns the single path that settles everything when the helper goes away
// (helper/gone.js builds its error).
import { encodeBytesHead, encodeFrame } from "../protocol/frames.js";
import { FrameDispatch } from "./frame-dispatch.js";
import { PACKAGE_VERSION, startHelper } from "./process.js";
import { Liveness } from "./liveness.js";
import { OrphanGuard, helperLeavesOrphans } from "./orphan-guard.js";
import { PROTOCOL_VERSION } from "../protocol/generated.js";
import { SyncChannel } from "../sync/channel.js";
import { HostShutdownError, helperVersionMismatch } from "../core/errors.js";
import { StderrTail, exitStatusKnown, goneError, killHelper } from "./gone.js";
import { LiveIds } from "./live-ids.js";
import { FrameWriter } from "./frame-writer.js";

// After stdout ends or a write fails, wait this long for the exit status to report it.
const EXIT_STATUS_WAIT_MS = 250;
/** The default of the host option helperTimeoutMs. */
export const DEFAULT_ANSWER_MS = 10_000;

/** One running helper and the conversation with it. */
export class Channel {
  #helperPath;
  #process;
  /** @type {import("node:stream").Writable} where frames go: the helper's stdin, or fd 6 */
  #input;
  /** @type {FrameWriter} */
  #writer;
  /** @type {FrameDispatch} reads the helper's stdout */
  #reader;
  #handlers = new LiveIds();
  #refs = 0;
  #hello;
  #goingAway = false;
  #gone = null;
  #shutdownRequested = false;
  #holdForShutdown = false;
  #stderrTail = new StderrTail();
  #closed;
  #graceMs;
  #answerMs;
  // A helper started by a worker thread leaves its first process (see --leave-parent):
  // the process Node watches exits at once, and the helper is known by its hello's pid.
  #leftParent;
  #helperPid = 0;
  /** @type {Liveness} the start deadline and the watchdog */
  #liveness;
  #shutdownDeadline = null;
  #endWhenIdle = false;
  /** @type {import("../sync/channel.js").SyncChannel|null} the blocking second channel; null where the helper has none */
  #sync = null;
  /** @type {import("./bootstrap.js").BootstrapReader|null} reads the bootstrap's lines first */
  #bootstrap = null;
  #transport = null;
  /** @type {OrphanGuard|null} where the helper's death does not end its children */
  #orphans = null;
  #retired = false;
  /** @type {import("./handles.js").HandleInbox|null} the stdio the helper hands over; null: it relays */ handles = null;

  /**
   * Starts the helper at once; `ready` settles after its hello.
   * @param {{ helperPath: string, launchThreads?: number, graceMs?: number, answerMs?: number,
   *   platform?: string, transport?: object }} options transport: normalized by
   *   helper/transport.js, a command reaching a helper elsewhere (then helperPath is only the
   *   local-platform upload, and may be undefined); answerMs: how long the helper may leave an answer owed
   *   (its hello, a liveness check, its end after shutdown's grace) before it counts as hung
   */
  constructor({ helperPath, launchThreads, graceMs = 5000, answerMs = DEFAULT_ANSWER_MS, platform = process.platform, transport }) {
    this.#graceMs = graceMs;
    this.#answerMs = answerMs;
    // Only a local helper's children are this machine's processes.
    if (!transport && helperLeavesOrphans(platform)) this.#orphans = new OrphanGuard();
    this.#hello = deferred();
    this.#hello.promise.catch(() => {}); // observed by whoever awaits ready
    const started = startHelper({ helperPath, launchThreads, graceMs, platform, transport });
    this.#helperPath = started.label;
    this.#transport = transport ?? null;
    this.#process = started.process;
    this.#input = started.input;
    this.#writer = new FrameWriter(started.input);
    this.#leftParent = started.leftParent;
    this.handles = started.handles;
    if (started.syncSocket || started.syncPipe) {
      this.#sync = new SyncChannel({
        packageVersion: PACKAGE_VERSION, helperPath: this.#helperPath, socket: started.syncSocket, pipe: started.syncPipe, answerMs,
        onFault: (fault, error, reason) => this.#onSyncFault(fault, reason),
      });
    }
    this.#bootstrap = started.bootstrap;
    this.#listen();
  }

  // Wires the helper's (or the transport's) streams and process to the channel, and
  // starts the hello deadline and the liveness watchdog.
  #listen() {
    const { stdout, stderr } = this.#process;
    const stdin = this.#input;
    this.#reader = new FrameDispatch({
      bootstrap: this.#bootstrap, handlers: this.#handlers, orphans: this.#orphans, source: stdout,
      on: { heard: () => this.#liveness.heard(), hello: (values) => this.#checkHello(values), broken: (reason, cause) => this.#goAway(reason, cause) },
    });
    stdout.on("data", (chunk) => this.#reader.push(chunk));
    stdout.on("end", () => this.#reader.end());
    stderr.setEncoding("utf8");
    stderr.on("data", (text) => this.#stderrTail.push(text));
    stdin.on("error", (error) => this.#goAway(`writing to it failed: ${error.message}`));
    this.#process.on("error", (error) => this.#goAway(`it could not be run: ${error.message}`));
    this.#process.on("exit", (code) => {
      // The first process of a helper that leaves its parent ends with 0 once it forked.
      if (!(this.#leftParent && code === 0)) this.#goAway("it exited");
    });
    this.#closed = new Promise((resolve) => this.#process.once("close", resolve));
    this.#liveness = new Liveness(this.#answerMs, {
      greeted: () => this.#helperPid !== 0,
      waiting: () => this.#handlers.size > 0,
      ping: () => {
        try { this.#write([encodeFrame("ping", [0])]); } catch { /* going away already */ }
      },
      hung: (reason) => this.#goAway(reason, undefined, { hung: true }),
    });
    this.#applyRef();
  }

  /** Resolves with the helper's pid once its hello matched; rejects otherwise. */
  get ready() {
    return this.#hello.promise;
  }

  /** Resolves once the helper's process has closed. */
  get closed() {
    return this.#closed;
  }

  /** True from the moment the helper is known to be going away. */
  get closing() {
    return this.#goingAway;
  }

  /** The error everything got when the helper went away; null while it runs. */
  get gone() {
    return this.#gone;
  }

  /** The helper's pid (from its hello), 0 before; for diagnostics and tests. */
  get helperPid() {
    return this.#helperPid;
  }

  /**
   * Where the helper runs: what the bootstrap read from uname (os, machine, platform,
   * and whether the helper was "cached" or "uploaded"); null for a local helper, or a
   * transport without bootstrap, or before the bootstrap said "ready".
   */
  get remote() {
    return this.#bootstrap?.ready ?? null;
  }

  /** The transport command's pid (ssh, docker, ...); 0 for a local helper. */
  get transportPid() {
    return this.#transport ? this.#process.pid ?? 0 : 0;
  }

  /** Whether a blocking call sent anything on the sync channel. */
  get syncOpened() {
    return this.#sync?.opened ?? false;
  }

  /**
   * True once this helper takes no new work: it is going away, or its sync channel
   * broke (it finishes what it runs, then ends). A host with `restart` starts a fresh one.
   */
  get retired() {
    return this.#goingAway || this.#retired;
  }

  /** How many ids are held: requests and children the helper still owes an answer. */
  get inFlight() {
    return this.#handlers.size;
  }

  /**
   * The sync channel, checked, for a call that blocks this thread; the first call waits
   * (at most answerMs) for its hello. Null where the helper has none (a transport, Linux
   * Node driving the Windows helper). Throws when the helper is gone or its sync channel broke.
   * @returns {import("../sync/channel.js").SyncChannel|null}
   */
  syncChannel() {
    if (this.#gone) throw this.#gone;
    if (!this.#sync) return null;
    this.#sync.open();
    return this.#sync;
  }

  // A blocking call found the sync channel unusable; it throws, and the next call must
  // find a working helper. Its byte stream is lost, and no new one can be made for this
  // helper: dead, it goes away now (not once the event loop sees its exit); hung, it is
  // killed; broken, it takes no new work and ends once its children have closed.
  #onSyncFault(fault, reason) {
    if (fault === "broken") {
      this.#retired = true;
      this.endWhenIdle();
      return;
    }
    this.#goAway(`during a synchronous call, ${reason}`, undefined, { hung: fault === "hung" });
  }

  /**
   * Hands every frame sent so far to the kernel now, instead of at the end of this
   * tick: true when nothing is left queued in Node (the helper will read it all).
   * False when the socket is full, or the helper is gone.
   */
  flushNow() {
    if (this.#gone || this.#goingAway) return false;
    return this.#writer.flushNow();
  }

  /** Registers a handler under a fresh id (never 0, unique among live ids). */
  register(handler) {
    if (this.#gone) throw this.#gone;
    if (this.#shutdownRequested) throw new HostShutdownError("the ProcessHost was shut down before this call completed");
    return this.#handlers.add(handler);
  }

  /** The id is finished: the helper said all it will say about it. */
  release(id) {
    this.#handlers.delete(id);
    if (this.#endWhenIdle && this.#handlers.size === 0) this.#end();
  }

  /**
   * Nobody can start anything on this helper any more (its host was collected): end it
   * once the children it still runs for someone have closed.
   */
  endWhenIdle() {
    this.#endWhenIdle = true;
    if (this.#handlers.size === 0) this.#end();
  }

  // Closing stdin is the helper's cue to end: it reaps what is left and exits.
  #end() {
    if (this.#gone || this.#shutdownRequested) return;
    this.#shutdownRequested = true;
    try { this.#writer.end(); } catch { /* already going away */ }
  }

  /** Sends one message; throws the channel's error when the helper is gone. */
  send(name, fields) {
    if (this.#gone) throw this.#gone;
    this.sendFrame(encodeFrame(name, fields));
  }

  /** Sends one encoded frame (encodeFrame, encodeSpawnFrame); throws when the helper is gone. */
  sendFrame(frame) {
    if (this.#gone) throw this.#gone;
    // After shutdown() the helper's stdin is closed and it is ending every child on
    // its own; what the settling children still say (close_output, credit) is moot,
    // and writing it would fail and cut the helper's grace period short.
    if (this.#shutdownRequested && this.#input.writableEnded) return;
    this.#orphans?.noteFrame(frame);
    this.#write([frame]);
  }

  /**
   * Sends a write/send message whose payload goes to the pipe as it is, uncopied.
   * `onFlushed` runs once Node has handed the payload to the kernel: until then the
   * caller must not reuse the buffer.
   */
  sendBytes(name, id, bytes, onFlushed) {
    if (this.#gone) throw this.#gone;
    if (this.#shutdownRequested && this.#input.writableEnded) {
      process.nextTick(onFlushed);
      return;
    }
    this.#write([encodeBytesHead(name, id, bytes.length), bytes], onFlushed);
  }

  #write(parts, onFlushed) {
    try {
      this.#writer.write(parts, onFlushed);
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
   * Asks the helper to end its children and exit; resolves once it has. Calls still
   * waiting for an answer reject with a HostShutdownError; running children hear how
   * they really ended (`exit` with the kill signal, or SIGKILL after the grace period).
   * A helper that has not ended `answerMs` after the grace period is killed.
   */
  async shutdown(graceMs = this.#graceMs) {
    if (!this.#gone && !this.#holdForShutdown) {
      this.#shutdownRequested = true;
      const error = new HostShutdownError("the ProcessHost was shut down before this call completed");
      this.#handlers.shutdown(error);
      // Someone awaits the helper's end: keep Node alive until it has ended.
      this.#holdForShutdown = true;
      this.#applyRef();
      try {
        this.#write([encodeFrame("shutdown", [graceMs])]);
        this.#writer.end(); // what is queued, then the end
      } catch { /* already going away */ }
      this.#shutdownDeadline = setTimeout(() => {
        this.#goAway(`it had not ended ${graceMs + this.#answerMs} ms after shutdown()`, undefined, { hung: true });
      }, Math.min(graceMs + this.#answerMs, 2 ** 31 - 1));
    }
    await this.#closed;
    clearTimeout(this.#shutdownDeadline);
    this.#holdForShutdown = false;
  }

  #applyRef() {
    const method = this.#refs > 0 || this.#holdForShutdown ? "ref" : "unref";
    this.#process[method]();
    for (const stream of [this.#input, this.#process.stdout, this.#process.stderr, this.#process.channel]) stream?.[method]?.();
  }

  #checkHello([protocol, version, pid]) {
    this.#liveness.greeted();
    this.#helperPid = pid;
    if (protocol !== PROTOCOL_VERSION || version !== PACKAGE_VERSION) {
      const error = helperVersionMismatch(this.#helperPath, { protocol, version }, { protocol: PROTOCOL_VERSION, version: PACKAGE_VERSION });
      return this.#goAway("its version does not match", error);
    }
    this.#hello.resolve(pid);
  }

  // The one "helper went away" path. Waits briefly for the exit status so the error
  // can say how the helper ended, then settles every handler exactly once. A hung
  // helper (`hung`: it failed to answer in time) is killed first.
  #goAway(reason, cause, { hung = false } = {}) {
    if (this.#goingAway) return;
    this.#goingAway = true;
    this.#liveness.stop();
    const finish = () => this.#settleEverything(reason, cause, hung);
    if (hung) this.#kill();
    // Not after shutdown(): the helper is ending its children itself, with their grace.
    if (!this.#shutdownRequested || hung) this.#orphans?.killAll();
    if (this.#leftParent || this.#exitStatusKnown()) {
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

  #exitStatusKnown() {
    return exitStatusKnown(this.#process, this.#leftParent);
  }

  #kill() {
    killHelper(this.#process, this.#leftParent, this.#helperPid);
  }

  #settleEverything(reason, cause, hung) {
    if (this.#gone) return;
    const known = this.#exitStatusKnown();
    const exitCode = known ? this.#process.exitCode : null;
    const signalCode = known ? this.#process.signalCode : null;
    const error = goneError({
      reason, cause, hung, shutdownRequested: this.#shutdownRequested, overTransport: this.#transport !== null,
      helperPath: this.#helperPath, exitCode, signal: signalCode, stderrTail: this.#stderrTail, helperPid: this.#helperPid,
    });
    this.#gone = error;
    this.#sync?.close();
    if (!known) this.#kill();
    this.#hello.reject(error);
    this.#reader?.flush(); // what was read, before the children hear that the helper is gone
    this.#handlers.settleAll(error);
    this.#refs = 0; this.#applyRef();
  }
}

function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
