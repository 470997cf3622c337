// One launch in helper mode: the spawn request, the helper's messages about its id as
// HostChild state and events, child_process's `close` (after exit and every piped
// output's close). Its "child streams", chosen once per helper: relay.js or handover.js.
import { AsyncResource } from "node:async_hooks";
import { HostChild, watchAbortSignal } from "./host-child.js";
import { childStreams } from "./handover.js";
import { deliverClose, deliverExit, drainAfterExit, setTimedOutBeforeStart } from "./child-end.js";
import { startLaunchDeadline } from "../core/deadline.js";
import { giveStdioThen } from "./given-stdio.js";
import { encodeRequestFrame } from "../protocol/spawn-frame.js";
import { awaitSpawnedPid } from "../sync/launch.js";
import { AbortError, ProtocolError, spawnFailure } from "../core/errors.js";

/** Drives one child through starting → launching → running → exited → closed. */
export class HelperLaunch {
  /** @type {HostChild} */ child;
  /** Settles when the process exists or failed in the way spawn() resolves with. */
  launched;

  #channel;
  #request;
  #onLaunch;
  #id = 0;
  #state = "starting";
  #pendingKill = null;
  #abortedBeforeCall = false;
  #given = null; // stdio given (#give): "now", in the kernel's buffer; "loop", some waits for this loop
  /** @type {import("./relay.js").LaunchRelay} the child streams (relayed, or handed over) */
  #relay;
  #channelEnded = false;
  #refHeld = false;
  #closesNeeded = 1;
  // Messages the helper still owes about this id (exit, one eof per piped output);
  // the id may be reused only after all of them.
  #helperOwes = 1;
  #launchedSettle;
  #launchDeadline = null;
  // Given up before the helper answered (launch deadline): the id stays ours, and what
  // the helper still says about it is only counted, until it has said all of it.
  #abandoned = false;
  // The launching call's async context: the helper's messages about this child (read
  // from its stdout, in the context of whoever started it) are handled in it.
  #scope = new AsyncResource("SPAWNHOST_CHILD");
  // The helper reported the exit, which is delivered a loop turn later (#onExit).
  #exitPending = false;

  /**
   * @param {import("../helper/channel.js").Channel} channel
   * @param {object} request normalized by core/options.js
   * @param {{ onLaunch?: Function, onUnhandledChildError: Function }} hooks
   */
  constructor(channel, request, { onLaunch, onUnhandledChildError }) {
    this.#channel = channel;
    this.#request = request;
    this.#onLaunch = onLaunch;
    this.launched = new Promise((resolve, reject) => { this.#launchedSettle = { resolve, reject }; });
    this.launched.catch(() => {}); // the caller observes it; don't report it twice
    this.child = new HostChild({
      spawnfile: request.spawnfile,
      spawnargs: request.spawnargs,
      onUnhandledError: onUnhandledChildError,
      controller: {
        kill: (signal) => this.#kill(signal),
        ref: () => this.#ref(), unref: () => this.#unref(),
        resize: (cols, rows) => this.#state === "running" && (this.#channel.send("resize", [this.#id, cols, rows]), true), // spawnhost/pty
        send: (message, callback, handle, options) => this.#relay.ipc.sendEarly?.(message, callback, handle, options) ?? this.#relay.ipc.send(message, callback),
        disconnect: () => this.#relay.ipc.disconnect(),
        waitForPid: () => this.#waitForPid(),
      },
    });
    this.#relay = childStreams(channel, request, this.child, {
      onStreamClosed: () => this.#maybeClose(),
      owesMore: () => this.#helperOwes > 0,
      scope: this.#scope,
      handOverLost: () => this.#handOverFailed(null, "EMFILE"),
    });
    if (this.#relay.ipc && !this.#relay.ipc.relayed) this.child.useNodeChannel(this.#relay.ipc);
    this.#closesNeeded += this.#relay.streams;
    this.#helperOwes += this.#relay.owed;
    this.#ref();
    // Aborted before the call: it never starts. Decided here, synchronously, so the
    // outcome does not depend on whether the helper is already up.
    this.#abortedBeforeCall = request.signal?.aborted === true;
    if (this.#abortedBeforeCall) this.#pendingKill = request.killSignal;
    else watchAbortSignal(this.child, request.signal, request.killSignal);
    this.#launchDeadline = startLaunchDeadline(request, () => this.#launchOverdue());
    channel.ready.then(() => (request.given ? this.#give() : this.#sendSpawn()), (error) => this.#onGone(error));
  }

  // Streams given as stdio go to the helper before the spawn naming them: now where they
  // can (given-stdio.js), else on this loop (#waitForPid cannot block for that). The spawn
  // then goes even if a kill came meanwhile (the kill follows): the helper holds none in vain.
  #give() {
    if (this.#state !== "starting" || this.#given) return;
    if (this.#pendingKill !== null) return this.#sendSpawn();
    this.#given = "loop";
    const failed = (error) => this.#state === "starting" && this.#onSpawnError(error.code, "stdio");
    if (giveStdioThen(this.#channel.handles, this.#request, (tokens) => this.#sendSpawn(tokens), failed)) this.#given = "now";
  }

  #sendSpawn(given) {
    if (this.#state !== "starting") return;
    if (this.#pendingKill !== null && !given) {
      this.#cancelled(this.#pendingKill);
      return;
    }
    try {
      this.#id = this.#channel.register({
        onMessage: (name, values) => this.#onMessage(name, values),
        onGone: (error) => this.#onGone(error),
        onShutdown: (error) => this.#onShutdown(error),
        scope: this.#scope,
      });
      this.#state = "launching";
      try {
        const frame = encodeRequestFrame(this.#id, this.#request, { ...this.#relay.spawnOptions(this.#id), given });
        this.#relay.beforeSpawn();
        this.#channel.sendFrame(frame);
        if (given && this.#pendingKill !== null) this.#kill(this.#pendingKill);
      } catch (error) {
        // Too big for one frame (beyond ARG_MAX: exec would refuse it too), or Node's pipes
        // not made (stage "pipe", stream-pipes.js): what child_process reports.
        const pipe = error?.stage === "pipe";
        if (!pipe && !(error instanceof ProtocolError && error.category === "oversized")) throw error;
        return this.#onSpawnError(pipe ? error.code : "E2BIG", pipe ? "pipe" : "queue");
      }
      this.#relay.open(this.#id);
    } catch (error) {
      // Whatever failed after the id was taken, the id must not stay taken.
      if (this.#state === "launching" && !this.#channel.gone) this.#releaseId();
      this.#onGone(error);
    }
  }

  // `pid` read before the helper answered: ask about this launch on the sync channel,
  // blocking this thread until the helper knows its pid (or that it failed).
  #waitForPid() {
    if (this.child.pid !== undefined || this.#abandoned) return;
    try {
      if (this.#state === "starting") {
        // Still waiting for the main channel's hello. The sync channel checks the
        // same helper's hello on its own, so the spawn may go now.
        if (this.#pendingKill !== null || !this.#channel.syncChannel()) return;
        if (this.#request.given) this.#give();
        else this.#sendSpawn();
      }
      // A given descriptor still in Node's hands: the helper cannot start the child yet.
      if (this.#state !== "launching" || this.#given === "loop") return;
      const pid = awaitSpawnedPid(this.#channel, this.#id);
      if (pid !== undefined && this.child.pid === undefined) this.child.pid = pid;
    } catch {
      // The helper is gone: the main channel reports it to this child as usual.
    }
  }

  #onMessage(name, values) {
    if (this.#relay.holding && name === "error") return this.#handOverFailed(values[2]);
    if (this.#relay.hold(name, values)) return;
    if (this.#abandoned) return this.#absorb(name, values);
    if (this.#relay.receive(name, values)) {
      if (name !== "eof") return;
      // An output's end closes its stream, which counts towards `close` as it closes;
      // the IPC channel has no stream: its end counts now.
      if (values[1] === 3 && !this.#channelEnded) {
        this.#channelEnded = true;
        this.#maybeClose();
      }
      return this.#helperPaid();
    }
    switch (name) {
      case "spawned": return this.#onSpawned(values);
      case "spawn_error": return this.#onSpawnError(values[1], values[2]);
      case "exit":
        this.#onExit(values[1], values[2], values[3]);
        return this.#helperPaid();
      case "error": return this.#onRequestRejected(values[2]);
    }
  }

  #onSpawned([, pid, createUs, queuedUs]) {
    this.#relay.whenSpawned(pid, (held) => {
      if (this.#state !== "launching") return;
      this.#running(pid, createUs, queuedUs);
      for (const [name, values] of held) this.#onMessage(name, values);
    });
  }

  // The child's stdio did not reach Node: the helper could not send it (`message`) and
  // killed the child, or Node had no room for a descriptor (`code` EMFILE: the child is
  // killed here, and the spawn fails as child_process's does then). The child's end is
  // only counted.
  #handOverFailed(message, code) {
    if (code) this.#kill("SIGKILL");
    const held = this.#relay.release();
    this.#abandoned = true;
    if (code) {
      this.#onSpawnError(code, "handover");
    } else {
      this.#finish();
      this.#launchedSettle.reject(new ProtocolError("rejected", `the helper could not hand the child's stdio to Node: ${message}`));
    }
    for (const [name, values] of held) this.#absorb(name, values);
  }

  #running(pid, createUs, queuedUs) {
    clearTimeout(this.#launchDeadline);
    this.#state = "running";
    this.child.pid = pid;
    if (this.#relay.ipc) this.child.openChannel(this.#relay.ipc);
    this.child.deliver("spawn");
    this.#launchedSettle.resolve();
    this.#onLaunch?.({ kind: this.#request.kind, file: this.#request.spawnfile, createMs: createUs / 1000, queuedMs: queuedUs / 1000 });
  }

  #onSpawnError(code, stage) {
    clearTimeout(this.#launchDeadline);
    if (code === "ECANCELED" && this.#pendingKill !== null) {
      this.#cancelled(this.#pendingKill);
      return;
    }
    if (code === "ETIMEDOUT" && stage === "queue") {
      // It waited for a launch thread past its whole timeout and never started.
      this.#releaseId();
      this.#timedOutBeforeStart();
      return;
    }
    const { error, emitted } = spawnFailure(code, this.#request.spawnfile, this.#request.spawnargs, stage);
    if (!this.#abandoned) this.#releaseId(); // else freed once the helper said all about it
    if (!emitted) {
      this.#finish();
      this.#launchedSettle.reject(error);
      return;
    }
    this.child.exitCode = error.errno;
    this.#launchedSettle.resolve();
    this.child.deliver("error", error);
    this.#closeNow();
  }

  // Still not started a second after its deadline: the helper is told to drop it (or
  // to kill it, should it start after all), and the caller hears of the timeout now.
  // This thread may itself have been busy past the deadline, with the helper's answer
  // unread in the socket: the decision waits for one poll phase, which reads it.
  #launchOverdue() { setImmediate(() => this.#giveUpIfNotStarted()); }

  #giveUpIfNotStarted() {
    if (this.#state === "launching") {
      try { this.#channel.send("kill", [this.#id, this.#request.killSignal]); } catch { /* gone: nothing will start */ }
      this.#abandoned = true;
    } else if (this.#state !== "starting") {
      return;
    }
    this.#timedOutBeforeStart();
  }

  // What the helper still says about an abandoned launch (spawned and killed at once,
  // or dropped from the queue): counted until it has said everything, then the id is free.
  #absorb(name, values) {
    if (name === "spawned") this.#relay.abandonSpawned(values[1]);
    if (name === "spawn_error" || name === "error") this.#releaseId();
    else if (name === "exit" || name === "eof") this.#helperPaid();
  }

  #timedOutBeforeStart() {
    setTimedOutBeforeStart(this.child, this.#request.killSignal);
    this.#launchedSettle.resolve();
    this.#closeNow();
  }

  // A kill reached the launch before the process existed: it never runs.
  #cancelled(signal) {
    this.#releaseId();
    this.child.signalCode = signal === 0 ? null : signal;
    this.#launchedSettle.resolve();
    if (this.#abortedBeforeCall) {
      this.child.killed = true;
      this.child.deliver("error", new AbortError(this.#request.signal.reason));
    }
    this.#closeNow();
  }

  // The helper sends a child's last output and the ends of its pipes before its exit,
  // all in one batch. child_process hears each in a callback of its own, so a reader's
  // `end` (a tick after the eof) and what the reader does next (a `for await` over the
  // other output) come before `exit` and its flushStdio, which drains what nobody
  // reads. The exit waits a loop turn here for the same order.
  #onExit(status, signal, flags) {
    this.#state = "exited";
    this.#exitPending = true;
    this.#relay.afterOutputsRead(() => this.#deliverExit(status, signal, flags));
  }

  #deliverExit(status, signal, flags) {
    this.#exitPending = false;
    deliverExit(this.child, status, signal, flags, () => this.#maybeClose());
  }

  #onRequestRejected(message) {
    const error = new ProtocolError("rejected", `the helper rejected a request for this child: ${message}`);
    if (this.#state === "launching") {
      this.#releaseId();
      this.#finish();
      this.#launchedSettle.reject(error);
    } else {
      this.child.deliver("error", error);
    }
  }

  #onGone(error) {
    clearTimeout(this.#launchDeadline);
    if (this.#state === "closed") return;
    if (this.#state === "starting" || this.#state === "launching") {
      this.#finish();
      this.#launchedSettle.reject(error);
      return;
    }
    // Exited: how the child ended is known (a grandchild may hold its pipes): no
    // error, only the end of what it can no longer send.
    const exited = this.#state === "exited";
    if (!exited) this.child.deliver("error", error);
    this.#relay.ipc?.gone(error);
    if (this.#relay.lost()) return this.#closeNow();
    // Node holds the outputs: `close` follows their ends, read or not; the channel's
    // end and the exit (unknown) count as come.
    this.#state = "exited";
    if (this.#relay.ipc?.relayed && !this.#channelEnded) this.#maybeClose();
    this.#channelEnded = true;
    if (!exited) drainAfterExit(this.child, () => this.#maybeClose());
  }

  // shutdown() began. A call not answered yet fails now; a running child stays to
  // hear its real end from the helper, which is ending it.
  #onShutdown(error) {
    if (this.#abandoned || this.#state === "launching") return false;
    this.child._hostShutdown = error;
    return true;
  }

  #maybeClose() {
    if (--this.#closesNeeded > 0 || this.#state === "closed") return;
    this.#finish();
    deliverClose(this.child);
  }

  // The process never ran or is lost: its outputs end (as child_process's do after a
  // failed spawn), so readers finish.
  #closeNow() {
    if (this.#state === "closed") return;
    this.child.stdin?.destroy();
    this.#relay.endOutputs();
    this.#finish();
    deliverClose(this.child);
  }

  // The helper owes nothing more: a stream's end holds the loop itself, as the sockets
  // of a child_process child do after its exit (one given to another child never ends).
  #helperPaid() {
    if (--this.#helperOwes > 0) return;
    this.#releaseId();
    this.#unref();
  }

  #releaseId() { if (this.#id !== 0) this.#channel.release(this.#id); }

  // The child is closed for its user: stop holding Node alive for it.
  #finish() {
    clearTimeout(this.#launchDeadline);
    this.#state = "closed";
    this.#relay.close();
    this.#unref();
  }

  #kill(signal) {
    // Exited, its exit not delivered yet: a kill reaches a zombie (true, as Node's
    // does). Its id may already be free, so nothing is sent.
    if (this.#exitPending) return true;
    if (this.#state === "starting") {
      this.#pendingKill = signal;
      return true;
    }
    if (this.#state !== "launching" && this.#state !== "running") return false;
    if (signal === 0) return true;
    if (this.#state === "launching") this.#pendingKill = signal;
    try { this.#channel.send("kill", [this.#id, signal]); } catch { return false; }
    return true;
  }

  #ref() {
    if (this.#refHeld || this.#state === "closed" || this.#helperOwes === 0) return;
    this.#refHeld = true;
    this.#channel.ref();
  }

  #unref() {
    if (this.#refHeld) this.#channel.unref();
    this.#refHeld = false;
  }
}

