// A forked child's IPC channel that Node owns (docs/ipc.md, "Node's own channel"): the
// parent's end is Node's own IPC pipe, connected to the helper's listener (spawn option
// ipc_connected), which gives the accepted end to the child as its fd 3 and never sees
// a byte of it. Node reads, writes and passes descriptors on it with child_process's
// own code: the channel is set up by ChildProcess.prototype.spawn on a stand-in whose
// process handle only connects the pipe, so send() with handles, the handle queue,
// ACK/NACK, internalMessage and the pending messages are Node's. Two hops a round
// trip, as child_process has; the relay (launch/ipc.js) costs four.
//
// The stand-in's events go to the HostChild; its send, disconnect, connected and
// channel are what the HostChild (and the drop-in through it) give out.
import { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import net from "node:net";
import { SERIALIZATIONS } from "./ipc-serialization.js";
import { SEND_HIGH_WATER } from "./ipc.js";
import { ipcChannelClosed } from "../core/errors.js";

// For the drop-in: whether its forks get channels of this kind (node:cluster needs them).
export { forkChannelsRefuseHandles, ownsForkChannels } from "../helper/process.js";

const OWN_EVENTS = new Set(["internalMessage", "newListener"]);
// An early disconnect() among the early sends.
const DISCONNECT = Symbol("disconnect");

/** The parent's end of one child's channel, set up by Node's own channel code. */
export class NodeChannel {
  /** Not relayed: the helper reports nothing about fd 3. */
  relayed = false;
  /** The stand-in Node's setupChannel was given: its send, disconnect, channel. */
  target;
  #child;
  #serialization;
  #open = false;
  // What the channel said before open(): [event, args][].
  #held = [];
  #onEnd;
  #ended = false;
  // Sends made before Node's end is connected (the drop-in's, before the spawn request).
  #early = [];
  #connected = false;
  // Callbacks of sends given to Node's end before the child was known to run, not
  // called yet: { callback, completed, error }. Completed ones wait for `spawn`.
  #waiting = new Set();
  #earlyBytes = 0;
  #queuedBehindHandle = -1;

  /**
   * Makes Node's end and connects it to `listener` now, so the helper finds the
   * connection queued when the spawn request that follows arrives.
   * @param {{ child: import("./host-child.js").HostChild, listener: string,
   *   serialization: string, onEnd: () => void }} init onEnd: the channel reached its
   *   end (the child closed it), which `close` waits for, as Node counts it
   */
  constructor({ child, serialization, onEnd }) {
    this.#child = child;
    this.#serialization = serialization;
    this.#onEnd = onEnd;
    const target = new EventEmitter();
    this.target = target;
    // setupChannel counts the channel's end in _closesGot as child_process does; the
    // stand-in has only that one to count.
    target._closesNeeded = 0;
    target._closesGot = 0;
    const emit = EventEmitter.prototype.emit;
    target.emit = (event, ...args) => {
      if (event === "spawn") return false; // the stand-in's own
      // Node's own listeners on the stand-in hear everything it says, at once, as on a
      // ChildProcess: setupChannel's, a sent socket's server (internal/socket_list.js
      // waits for 'disconnect'), a disconnect waiting for the message being read. An
      // 'error' nobody there listens for is only the HostChild's.
      if (OWN_EVENTS.has(event) || EventEmitter.prototype.listenerCount.call(target, event) > 0) emit.call(target, event, ...args);
      if (event === "newListener") return true;
      // Before the child is known to run, what the channel says waits here, in order:
      // a quick child may write and close its end before the helper's answer came.
      if (!this.#open) return this.#held.push([event, args]), true;
      return this.#deliver(event, args);
    };
    // A sent socket's server also drops the child from its workers on the child's 'exit'.
    child.once("exit", (...args) => emit.call(target, "exit", ...args));
    // Node keeps messages for a 'message' listener to come, on its channel object, and
    // loses them when the channel ends first: it always finds one here (the HostChild
    // keeps them for its own listeners).
    target.listenerCount = (event) => (event === "message" ? 1 : EventEmitter.prototype.listenerCount.call(target, event));
  }

  /**
   * Makes Node's end and connects it to the helper's `listener`, just before the spawn
   * request goes out, so the helper finds the connection queued when it reads it.
   */
  connect(listener) {
    const target = this.target;
    const options = {
      file: this.#child.spawnfile,
      args: [],
      envPairs: [],
      stdio: ["ignore", "ignore", "ignore", "ipc"],
      serialization: this.#serialization,
    };
    // spawn() replaces options.stdio with the entries it made (the IPC pipe among them)
    // before it calls the handle: read them there, as the handle's arguments differ
    // between Node lines (one options object on Node 20 and 22, positional on 24).
    target._handle = { pid: 0, spawn: () => connect(options.stdio[3].handle, listener) };
    ChildProcess.prototype.spawn.call(target, options);
    target._handle = null;
    this.#connected = true;
    // The sends made so far go out now, in order (all but an early disconnect, which
    // waits for the child): from here on the pipe takes them, as child_process's does.
    while (this.#early.length > 0 && this.#early[0][0] !== DISCONNECT) {
      const [message, handle, options, callback] = this.#early.shift();
      target.send(message, handle, options, this.#afterSpawn(callback));
    }
  }

  // A send's callback, called once the child is known to run (after `spawn`), as Node's
  // come after its own `spawn`; ERR_IPC_CHANNEL_CLOSED when it never ran.
  #afterSpawn(callback) {
    if (typeof callback !== "function") return undefined;
    const entry = { callback, completed: false, error: null };
    this.#waiting.add(entry);
    return (error) => {
      if (!this.#waiting.has(entry)) return; // answered already: the launch failed
      if (!this.#open) return Object.assign(entry, { completed: true, error });
      this.#waiting.delete(entry);
      callback(error);
    };
  }

  // The channel's end counts once towards `close`: the child's EOF, or our own
  // disconnect, after which child_process never emits `close` (nodejs/node#19433)
  // and spawnhost does (docs/ipc.md).
  #end() {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
  }

  #deliver(event, args) {
    const child = this.#child;
    switch (event) {
      case "message":
      case "internalMessage": return child.deliver(event, ...args), true;
      case "disconnect":
        child.channelClosed();
        return this.#end(), true;
      case "error": return child.deliver("error", args[0]), true;
      case "close": return this.#end(), true;
      default: return false;
    }
  }

  /** The child exists: what it sent so far goes to the HostChild, which keeps it for its listeners. */
  open() {
    this.#open = true;
    // After `spawn`, which the launch delivers right after this.
    const held = this.#held.splice(0);
    const callbacks = [...this.#waiting].filter((entry) => entry.completed);
    for (const entry of callbacks) this.#waiting.delete(entry);
    if (held.length + callbacks.length > 0) {
      process.nextTick(() => {
        if (callbacks.length > 0) this.#child.afterDelivered(() => { for (const { callback, error } of callbacks) callback(error); });
        for (const [event, args] of held) this.#deliver(event, args);
      });
    }
    // What was sent before goes out now, in order; its callbacks come after `spawn`,
    // which follows at once, as Node's come after its own `spawn`.
    const target = this.target;
    for (const args of this.#early.splice(0)) {
      if (args[0] === DISCONNECT) target.disconnect();
      else target.send(...args);
    }
    this.#early = null;
  }

  /** Node's own send (ChildProcess#send): handles, the handle queue, its return value. */
  send(message, handle, options, callback) {
    if (this.#early === null) return this.target.send(message, handle, options, callback);
    return this.sendEarly(message, callback, handle, options);
  }

  /**
   * A send made before the channel exists, its arguments checked as Node's send()
   * checks them (drop-in/child.js): serialized now to throw what Node throws, it waits
   * until the channel exists; the answer is send()'s for that backlog.
   */
  sendEarly(message, callback, handle, options) {
    if (this.#early === null) return this.target.send(message, handle, options, callback);
    // Node's end is connected: the send goes to it now, as child_process's goes to its
    // pipe, so a handle leaves its server at once (a net.Server counts a sent connection
    // among its workers' from then on, for close() and getConnections()), and send()'s
    // answer is Node's. Only its callback waits for the child.
    if (this.#connected && this.#early.length === 0) return this.target.send(message, handle, options, this.#afterSpawn(callback));
    this.#earlyBytes += SERIALIZATIONS[this.#serialization].encode(message).length;
    this.#early.push([message, handle, options, callback]);
    // Node's answers: behind a handle not acknowledged yet, what follows is queued and
    // the first one queued says true, the rest false; else the backlog's size decides.
    if (this.#queuedBehindHandle >= 0) return ++this.#queuedBehindHandle === 1;
    if (handle) this.#queuedBehindHandle = 0;
    return this.#earlyBytes < SEND_HIGH_WATER;
  }

  /** Node's own disconnect: after the queued handles; 'disconnect' follows. */
  disconnect() {
    if (this.#early !== null) this.#early.push([DISCONNECT]);
    else if (this.target.connected) this.target.disconnect();
  }

  /** Node's channel object (ref/unref), while it is open. */
  get channel() {
    return this.#early === null ? this.target.channel ?? null : null;
  }

  /** The launch failed or was given up: the channel closes, no 'disconnect' for a child that never was. */
  abandon() {
    const pipe = this.target.channel && channelHandle(this.target);
    this.target.emit = () => false;
    pipe?.close();
    for (const [, , , callback] of this.#early?.splice(0) ?? []) {
      if (typeof callback === "function") process.nextTick(callback, ipcChannelClosed());
    }
    // Now, not when Node's write gives up on the closed pipe (on Node 24, after `close`).
    for (const { callback } of this.#waiting) process.nextTick(callback, ipcChannelClosed());
    this.#waiting.clear();
  }

  /** The helper is gone: the channel is Node's and the child's, and goes on until the child closes it. */
  gone() {}
}

// Node's handle of the channel (setupChannel keeps it under a symbol of its own).
function channelHandle(target) {
  const symbol = Object.getOwnPropertySymbols(target).find((s) => target[s] && typeof target[s].readStart === "function");
  return symbol ? target[symbol] : null;
}

// Connects the IPC pipe spawn() made to the helper's listener, through net.Socket's
// connect (which makes the connect request), then disowns the socket: the pipe's
// reads and writes are the channel's. The connect itself is done when this returns
// (a unix socket's connect completes at once), its callback comes later and finds the
// pipe's owner gone.
function connect(pipe, listener) {
  const socket = new net.Socket({ handle: pipe, readable: false, writable: false, manualStart: true });
  // A failed connect closes the pipe: the channel reads its end, and the helper refuses the launch.
  socket.on("error", () => {});
  socket.connect(listener);
  const owner = Object.getOwnPropertySymbols(pipe).find((symbol) => symbol.description === "owner_symbol");
  pipe[owner] = { destroyed: true };
  return 0;
}
