// How one helper-mode child's streams relay: its stdin, stdout, stderr and IPC channel
// as Node streams on one side, write/end/credit/close_output/send frames about its id
// on the other. HelperLaunch (what a launch is: its states, id and end) owns one of
// these and tells it when frames may go out and when they must stop.
//
// This is one of the two "child streams" of a launch (docs/architecture.md): where the
// helper hands the stdio over to Node, launch/handover.js replaces the stdio part and
// keeps the rest (the IPC channel still relays).
import { HelperInput, HelperOutput } from "./streams.js";
import { OUTPUT_CREDIT } from "../protocol/spawn-request.js";
import { HelperIpc } from "./ipc.js";

/** The streams of one child and the frames that feed them. */
export class LaunchRelay {
  /** How many streams `close` waits for (each piped output, the IPC channel). */
  streams = 0;
  /** @type {HelperIpc|null} */
  ipc = null;

  #channel;
  #request;
  #child;
  #onStreamClosed;
  #owesMore;
  #id = 0;
  // "waiting": frames are held until the spawn went out; "open": they go out with the
  // id; "closed": the child is closed for its user, nothing more is sent.
  #state = "waiting";
  // stdin writes and other frames made before the spawn request went out.
  #early = [];
  // Between `spawned` and the streams being ready: the helper's messages about the id.
  #held = null;

  /**
   * @param {import("../helper/channel.js").Channel} channel
   * @param {object} request normalized by core/options.js
   * @param {import("./host-child.js").HostChild} child
   * @param {{ onStreamClosed: () => void, owesMore: () => boolean, scope?: import("node:async_hooks").AsyncResource, handOverLost?: () => void }} hooks
   *   onStreamClosed: an output stream closed; owesMore: the helper still owes messages
   *   about the id; scope: the launching call's async context, for events that do not
   *   come through the channel (the handed-over sockets'); handOverLost: a handed-over
   *   descriptor never reached Node, which had no room for it (launch/handover.js)
   */
  constructor(channel, request, child, hooks) {
    const { onStreamClosed, owesMore, scope } = hooks;
    this.#channel = channel;
    this.#request = request;
    this.#child = child;
    this.#onStreamClosed = onStreamClosed;
    this.#owesMore = owesMore;
    this._createStdio(request, child, onStreamClosed, channel, scope, hooks);
    if (request.ipc) this._createIpc(request, child, onStreamClosed);
  }

  /** The launch's id, once the spawn request went out (0 before). */
  get id() {
    return this.#id;
  }

  /** How many ends the helper reports (one eof per relayed output and per IPC channel). */
  get owed() {
    return this.streams;
  }

  /**
   * The spawn options this way of carrying the streams adds to request `id`'s. Throws
   * an Error with a `code` and stage "pipe" if the streams cannot be made: a spawn error.
   */
  spawnOptions() {
    return {};
  }

  /**
   * The helper said `spawned`: `ready(held)` once the streams can be used (here: now),
   * with the messages about the id that came meanwhile (`hold`).
   */
  whenSpawned(pid, ready) {
    ready([]);
  }

  /** True while messages wait for the streams (`hold` takes them). */
  get holding() {
    return this.#held !== null;
  }

  /** Keeps a message for after the streams are ready; false when they are. */
  hold(name, values) {
    this.#held?.push([name, values]);
    return this.#held !== null;
  }

  /** Starts holding (the streams are not ready yet). */
  _startHolding() {
    this.#held = [];
  }

  /** Stops holding: the messages held so far. */
  release() {
    const held = this.#held ?? [];
    this.#held = null;
    return held;
  }

  /**
   * The helper reported the exit: `deliver` it once what the child wrote before it
   * was read. The helper relays that before the exit, so a loop turn is enough (the
   * exit then follows each output's end, as under child_process).
   */
  afterOutputsRead(deliver) {
    setImmediate(deliver);
  }

  /** The spawn request is about to go out (encoded, nothing can stop it now). */
  beforeSpawn() {}

  /** A launch given up on was spawned after all: nothing of its streams is kept. */
  abandonSpawned() {}

  /** The process never ran or is lost: the outputs end, so readers finish. */
  endOutputs() {
    this.#child.stdout?._eof();
    this.#child.stderr?._eof();
  }

  /**
   * The helper went away while the child ran: its relayed streams are gone with it.
   * @returns {boolean} true: `close` now; false: it follows the streams' own ends
   */
  lost() {
    this.#child.stdin?.destroy();
    this.#child.stdout?.destroy();
    this.#child.stderr?.destroy();
    return true;
  }

  /** The spawn request went out under `id`: what waited goes out too, in order. */
  open(id) {
    this.#id = id;
    this.#state = "open";
    // The helper holds input that arrives before the process exists.
    for (const [name, bytes] of this.#early.splice(0)) this.#sendForChild(name, bytes);
  }

  /** The child is closed for its user (or never got an id): nothing more is sent. */
  close() {
    this.#state = "closed";
    this.ipc?.abandon();
  }

  /**
   * Relays a message about the child's streams.
   * @returns {boolean} true when it was one (data, eof, written, stdin_error, sent, send_error)
   */
  receive(name, values) {
    const child = this.#child;
    switch (name) {
      case "data":
        if (values[1] === 3) this.ipc?.receive(values[2]);
        else this.#output(values[1])?._receive(values[2]);
        return true;
      case "eof":
        if (values[1] === 3) this.ipc?.eof();
        else this.#output(values[1])?._eof();
        return true;
      case "written": child.stdin?._acknowledge(values[1]); return true;
      case "stdin_error": child.stdin?._fail(values[1]); return true;
      case "sent": this.ipc?.acknowledge(values[1]); return true;
      case "send_error": this.ipc?.fail(values[1]); return true;
      default: return false;
    }
  }

  /** Sends a frame about the child (end, close_output, send), or holds it until open. */
  sendForChild(name, field) {
    this.#sendForChild(name, field);
  }

  _createStdio() {
    const [stdinKind, stdoutKind, stderrKind] = this.#request.stdio;
    const stdin = stdinKind === "pipe" ? new HelperInput({
      send: (bytes, onFlushed) => this.#writeStdin(bytes, onFlushed),
      end: () => this.#sendForChild("end"),
      running: () => this.#child.exitCode === null && this.#child.signalCode === null,
    }) : null;
    const output = (kind, fd) => {
      if (kind !== "pipe") return null;
      const credit = this.#request.kind === "spawn" ? OUTPUT_CREDIT : undefined;
      const stream = new HelperOutput({ credit, grant: (bytes) => this.#grant(fd, bytes) });
      this.streams++;
      stream.on("close", () => {
        // A destroyed output closes the pipe in the helper, as Node closes its end: a
        // child that writes on gets EPIPE/SIGPIPE instead of blocking on a full pipe
        // (and execFile's timeout is not held up by a grandchild keeping it open).
        if (!stream.readableEnded) this.#closeOutput(fd);
        this.#onStreamClosed();
      });
      return stream;
    };
    this.#child.attachStdio(stdin, output(stdoutKind, 1), output(stderrKind, 2));
  }

  // The channel is one more stream the helper reports the end of, and `close` waits for.
  _createIpc() {
    this.ipc = new HelperIpc({
      child: this.#child,
      serialization: this.#request.serialization,
      sendFrame: (name, field) => {
        try { this.#sendForChild(name, field); } catch { /* helper gone: onGone settles */ }
      },
      grant: (bytes) => this.#grant(3, bytes),
    });
    this.streams++;
  }

  // stdin bytes go out uncopied; `onFlushed` tells the stream when the caller's buffer
  // is free again. Before the process exists they wait here, as a copy. False: the
  // child is gone, and the bytes with it.
  #writeStdin(bytes, onFlushed) {
    if (this.#state === "waiting") {
      this.#early.push(["write", Buffer.from(bytes)]);
      process.nextTick(onFlushed);
    } else if (this.#state === "open" && this.#owesMore()) {
      this.#channel.sendBytes("write", this.#id, bytes, onFlushed);
    } else {
      process.nextTick(onFlushed);
      return false;
    }
    return true;
  }

  #sendForChild(name, bytes) {
    if (this.#state === "waiting") this.#early.push([name, bytes]);
    // Closed, or the helper has said all it owes (the id may be another child's by
    // now: between the exit message and `exit`, and until `close`).
    else if (this.#state === "closed" || !this.#owesMore()) return;
    // IPC chunks are our own serialized buffers, never reused: they go out uncopied.
    else if (name === "send") this.#channel.sendBytes(name, this.#id, bytes, () => {});
    else this.#channel.send(name, bytes === undefined ? [this.#id] : [this.#id, bytes]);
  }

  #output(fd) {
    return fd === 1 ? this.#child.stdout : fd === 2 ? this.#child.stderr : null;
  }

  #grant(fd, bytes) {
    // Output may still arrive after exit, until its eof: grant while the helper owes it.
    if (this.#state !== "open" || !this.#owesMore()) return;
    try { this.#channel.send("credit", [this.#id, fd, bytes]); } catch { /* helper gone: onGone settles */ }
  }

  #closeOutput(fd) {
    if (this.#state === "open" && !this.#owesMore()) return;
    try { this.#sendForChild("close_output", fd); } catch { /* helper gone: onGone settles */ }
  }
}
