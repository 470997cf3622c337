// One launch in helper mode: sends the spawn request, turns the helper's messages about
// its id into HostChild state, events and stream data, and gives child_process's
// `close` semantics (after exit and after every piped output has closed).
import { HostChild, watchAbortSignal } from "./host-child.js";
import { HelperInput, HelperOutput, OUTPUT_CREDIT } from "./helper-streams.js";
import { HelperIpc } from "./helper-ipc.js";
import { EXIT_FLAG } from "./protocol-generated.js";
import { spawnRequestOptions } from "./spawn-request.js";
import { encodeSpawnFrame } from "./spawn-frame.js";
import { awaitSpawnedPid } from "./sync-launch.js";
import { AbortError, ProtocolError, spawnFailure } from "./errors.js";

// The helper applies `timeout` to the running process. A launch the helper has not
// even started this long after its deadline (every launch thread stuck) is given up
// on the calling thread, and reported as the timeout it is.
const LAUNCH_DEADLINE_GRACE_MS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

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
  // stdin writes made before the spawn request went out (execFile's `input`).
  #early = [];
  #refHeld = false;
  #closesNeeded = 1;
  // Messages the helper still owes about this id (exit, one eof per piped output);
  // the id may be reused only after all of them.
  #helperOwes = 1;
  #launchedSettle;
  /** @type {HelperIpc|null} */
  #ipc = null;
  #launchDeadline = null;
  // Given up before the helper answered (launch deadline): the id stays ours, and what
  // the helper still says about it is only counted, until it has said all of it.
  #abandoned = false;

  /**
   * @param {import("./channel.js").Channel} channel
   * @param {object} request normalized by options.js
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
        ref: () => this.#ref(),
        unref: () => this.#unref(),
        send: (message, callback) => this.#ipc.send(message, callback),
        disconnect: () => this.#ipc.disconnect(),
        waitForPid: () => this.#waitForPid(),
      },
    });
    this.#createStdio();
    if (request.ipc) this.#createIpc();
    this.#ref();
    if (request.signal?.aborted) {
      // Aborted before the call: it never starts. Decided here, synchronously, so the
      // outcome does not depend on whether the helper is already up.
      this.#pendingKill = request.killSignal;
      this.#abortedBeforeCall = true;
    } else {
      watchAbortSignal(this.child, request.signal, request.killSignal);
    }
    if (request.timeout > 0) {
      this.#launchDeadline = setTimeout(() => this.#launchOverdue(), Math.min(request.timeout + LAUNCH_DEADLINE_GRACE_MS, MAX_TIMER_MS));
      this.#launchDeadline.unref();
    }
    channel.ready.then(() => this.#sendSpawn(), (error) => this.#onGone(error));
  }

  #createStdio() {
    const [stdinKind, stdoutKind, stderrKind] = this.#request.stdio;
    const stdin = stdinKind === "pipe" ? new HelperInput({
      send: (bytes, onFlushed) => this.#writeStdin(bytes, onFlushed),
      end: () => this.#sendForChild("end"),
    }) : null;
    const output = (kind, fd) => {
      if (kind !== "pipe") return null;
      const credit = this.#request.kind === "spawn" ? OUTPUT_CREDIT : undefined;
      const stream = new HelperOutput({ credit, grant: (bytes) => this.#grant(fd, bytes) });
      this.#closesNeeded++;
      this.#helperOwes++;
      stream.on("close", () => {
        // A destroyed output closes the pipe in the helper, as Node closes its end: a
        // child that writes on gets EPIPE/SIGPIPE instead of blocking on a full pipe
        // (and execFile's timeout is not held up by a grandchild keeping it open).
        if (!stream.readableEnded) this.#closeOutput(fd);
        this.#maybeClose();
      });
      return stream;
    };
    this.child._attachStdio(stdin, output(stdoutKind, 1), output(stderrKind, 2));
  }

  // The channel is one more stream the helper reports the end of, and `close` waits for.
  #createIpc() {
    this.#ipc = new HelperIpc({
      child: this.child,
      serialization: this.#request.serialization,
      sendFrame: (name, field) => {
        try { this.#sendForChild(name, field); } catch { /* helper gone: onGone settles */ }
      },
      grant: (bytes) => this.#grant(3, bytes),
    });
    this.#closesNeeded++;
    this.#helperOwes++;
  }

  #sendSpawn() {
    if (this.#state !== "starting") return;
    if (this.#pendingKill !== null) {
      this.#cancelled(this.#pendingKill);
      return;
    }
    try {
      this.#id = this.#channel.register({
        onMessage: (name, values) => this.#onMessage(name, values),
        onGone: (error) => this.#onGone(error),
        onShutdown: (error) => this.#onShutdown(error),
      });
      this.#state = "launching";
      try {
        this.#channel.sendFrame(encodeSpawnFrame(this.#id, this.#request.spawnfile, this.#request.spawnargs.slice(1), spawnRequestOptions(this.#request)));
      } catch (error) {
        // Arguments and environment too big for one frame: exec would refuse them too
        // (beyond ARG_MAX), so report what child_process reports.
        if (!(error instanceof ProtocolError && error.category === "oversized")) throw error;
        this.#onSpawnError("E2BIG", "queue");
        return;
      }
      // The helper holds input that arrives before the process exists.
      for (const [name, bytes] of this.#early.splice(0)) this.#sendForChild(name, bytes);
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
        this.#sendSpawn();
      }
      if (this.#state !== "launching") return;
      const pid = awaitSpawnedPid(this.#channel, this.#id);
      if (pid !== undefined && this.child.pid === undefined) this.child.pid = pid;
    } catch {
      // The helper is gone: the main channel reports it to this child as usual.
    }
  }

  #onMessage(name, values) {
    if (this.#abandoned) return this.#absorb(name);
    switch (name) {
      case "spawned": return this.#onSpawned(values);
      case "spawn_error": return this.#onSpawnError(values[1], values[2]);
      case "data": return values[1] === 3 ? this.#ipc?.receive(values[2]) : this.#output(values[1])?._receive(values[2]);
      case "eof":
        if (values[1] === 3) {
          this.#ipc?.eof();
          this.#maybeClose();
        } else {
          this.#output(values[1])?._eof();
        }
        return this.#helperPaid();
      case "exit":
        this.#onExit(values[1], values[2], values[3]);
        return this.#helperPaid();
      case "written": return this.child.stdin?._acknowledge(values[1]);
      case "stdin_error": return this.child.stdin?._fail(values[1]);
      case "sent": return this.#ipc?.acknowledge(values[1]);
      case "send_error": return this.#ipc?.fail(values[1]);
      case "error": return this.#onRequestRejected(values[2]);
    }
  }

  #onSpawned([, pid, createUs, queuedUs]) {
    clearTimeout(this.#launchDeadline);
    this.#state = "running";
    this.child.pid = pid;
    if (this.#ipc) this.child._openChannel();
    this.child._deliver("spawn");
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
    const { error, emitted } = spawnFailure(code, this.#request.spawnfile, this.#request.spawnargs);
    this.#releaseId();
    if (!emitted) {
      this.#finish();
      this.#launchedSettle.reject(error);
      return;
    }
    this.child.exitCode = error.errno;
    this.#launchedSettle.resolve();
    this.child._deliver("error", error);
    this.#closeNow();
  }

  // Still not started a second after its deadline: the helper is told to drop it (or
  // to kill it, should it start after all), and the caller hears of the timeout now.
  // This thread may itself have been busy past the deadline, with the helper's answer
  // unread in the socket: the decision waits for one poll phase, which reads it.
  #launchOverdue() {
    setImmediate(() => this.#giveUpIfNotStarted());
  }

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
  #absorb(name) {
    if (name === "spawn_error" || name === "error") this.#releaseId();
    else if (name === "exit" || name === "eof") this.#helperPaid();
  }

  // The launch never produced a process before its deadline: a timeout, with the kill
  // signal as the end, as child_process reports a child its timeout killed.
  #timedOutBeforeStart() {
    this.child.killed = true;
    this.child._exitFlags = EXIT_FLAG.timed_out;
    this.child.signalCode = this.#request.killSignal;
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
      this.child._deliver("error", new AbortError(this.#request.signal.reason));
    }
    this.#closeNow();
  }

  #onExit(status, signal, flags) {
    this.#state = "exited";
    this.child.exitCode = signal === null ? status : null;
    this.child.signalCode = signal;
    this.child._exitFlags = flags;
    if (flags & EXIT_FLAG.timed_out) this.child.killed = true; // the helper sent kill_signal
    // As child_process does: stdin goes away with the process, and outputs nobody
    // listens to are drained so that `close` can follow.
    this.child.stdin?.destroy();
    this.child._deliver("exit", this.child.exitCode, signal);
    // Only once the caller could attach listeners (the child may exit before spawn()
    // has even resolved), as child_process's flushStdio does after `exit`.
    this.child._afterDelivered(() => {
      for (const stream of [this.child.stdout, this.child.stderr]) {
        if (stream && stream.readable && !stream._readableState.readableListening) stream.resume();
      }
      this.#maybeClose();
    });
  }

  #onRequestRejected(message) {
    const error = new ProtocolError("rejected", `the helper rejected a request for this child: ${message}`);
    if (this.#state === "launching") {
      this.#releaseId();
      this.#finish();
      this.#launchedSettle.reject(error);
    } else {
      this.child._deliver("error", error);
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
    if (this.#state === "exited") {
      // How the child ended is known (a grandchild may hold its pipes): no error, only
      // the end of what it can no longer send.
      this.#ipc?.gone(error);
      this.#closeNow();
      return;
    }
    this.child._deliver("error", error);
    this.#ipc?.gone(error);
    this.child.stdin?.destroy();
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.#closeNow();
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
    this.#deliverClose();
  }

  // The process never ran or is lost: its outputs end (as child_process's do after a
  // failed spawn), so readers finish.
  #closeNow() {
    if (this.#state === "closed") return;
    this.child.stdin?.destroy();
    this.child.stdout?._eof();
    this.child.stderr?._eof();
    this.#finish();
    this.#deliverClose();
  }

  // child_process raises `close` a loop turn after the last stream closed (it waits
  // for libuv's close callbacks); code that awaits the output and then listens for
  // `close` relies on that, so we wait a turn as well.
  #deliverClose() {
    setImmediate(() => this.child._deliver("close", this.child.exitCode, this.child.signalCode));
  }

  #helperPaid() {
    if (--this.#helperOwes === 0) this.#releaseId();
  }

  #releaseId() {
    if (this.#id !== 0) this.#channel.release(this.#id);
  }

  // The child is closed for its user: stop holding Node alive for it.
  #finish() {
    clearTimeout(this.#launchDeadline);
    this.#state = "closed";
    if (this.#refHeld) {
      this.#refHeld = false;
      this.#channel.unref();
    }
  }

  // stdin bytes go out uncopied; `onFlushed` tells the stream when the caller's buffer
  // is free again. Before the process exists they wait here, as a copy.
  #writeStdin(bytes, onFlushed) {
    if (this.#state === "starting") {
      this.#early.push(["write", Buffer.from(bytes)]);
      process.nextTick(onFlushed);
    } else if (this.#id !== 0 && this.#state !== "closed") {
      this.#channel.sendBytes("write", this.#id, bytes, onFlushed);
    } else {
      process.nextTick(onFlushed);
    }
  }

  #sendForChild(name, bytes) {
    if (this.#state === "starting") this.#early.push([name, bytes]);
    else if (this.#id === 0 || this.#state === "closed") return;
    // IPC chunks are our own serialized buffers, never reused: they go out uncopied.
    else if (name === "send") this.#channel.sendBytes(name, this.#id, bytes, () => {});
    else this.#channel.send(name, bytes === undefined ? [this.#id] : [this.#id, bytes]);
  }

  #output(fd) {
    return fd === 1 ? this.child.stdout : fd === 2 ? this.child.stderr : null;
  }

  #grant(fd, bytes) {
    // Output may still arrive after exit, until its eof: grant while the helper owes it.
    if (this.#id === 0 || this.#helperOwes === 0) return;
    try { this.#channel.send("credit", [this.#id, fd, bytes]); } catch { /* helper gone: onGone settles */ }
  }

  #closeOutput(fd) {
    if (this.#state !== "starting" && (this.#id === 0 || this.#helperOwes === 0)) return;
    try { this.#sendForChild("close_output", fd); } catch { /* helper gone: onGone settles */ }
  }

  #kill(signal) {
    if (this.#state === "starting") {
      this.#pendingKill = signal;
      return true;
    }
    if (this.#state !== "launching" && this.#state !== "running") return false;
    if (signal === 0) return true;
    if (this.#state === "launching") this.#pendingKill = signal;
    try {
      this.#channel.send("kill", [this.#id, signal]);
      return true;
    } catch {
      return false;
    }
  }

  #ref() {
    if (this.#refHeld || this.#state === "closed") return;
    this.#refHeld = true;
    this.#channel.ref();
  }

  #unref() {
    if (!this.#refHeld) return;
    this.#refHeld = false;
    this.#channel.unref();
  }
}

