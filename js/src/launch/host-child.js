// HostChild: the ChildProcess look-alike both backends hand out. Users see
// child_process's fields, events and order. The backends (host/'s inline one, and this
// folder's helper launches) and the faces (drop-in/, pty/) drive it through its named
// driving methods below (deliver, release, attachStdio, the channel's), which users of
// ProcessHost have no reason to call.
import dgram from "node:dgram";
import { EventEmitter } from "node:events";
import net from "node:net";
import { signalName } from "../core/options.js";
import { AbortError, handlesNotSupported, invalidMessage, invalidSendOptions, ipcChannelClosed, ipcDisconnected, notAHandle } from "../core/errors.js";

const MESSAGE_TYPES = new Set(["string", "object", "number", "boolean"]);
// What child_process's send() takes as a handle: its wrappers, and the native handles.
const NATIVE_HANDLES = new Set(["TCP", "Pipe", "UDP"]);

/**
 * send()'s optional arguments as child_process's send() reads them: a function in
 * the handle's or the options' place is the callback; options, when given, must be an
 * object (ERR_INVALID_ARG_TYPE, thrown even when the channel is closed). A callback
 * that is not a function is ignored, as there.
 * @returns {{ handle: unknown, callback: Function|undefined }}
 */
export function sendArguments(handle, options, callback) {
  if (typeof handle === "function") {
    callback = handle;
    handle = undefined;
  } else if (typeof options === "function") {
    callback = options;
  } else if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw invalidSendOptions(options);
  }
  return { handle, callback: typeof callback === "function" ? callback : undefined };
}

/**
 * The checks child_process's send() makes once the channel is open: the message's
 * type, then the handle (a falsy one means none). A real handle cannot be sent here.
 */
export function checkMessage(message, handle, { handles = false } = {}) {
  if (message === undefined || !MESSAGE_TYPES.has(typeof message)) throw invalidMessage(message);
  if (!handle) return;
  const isHandle = handle instanceof net.Socket || handle instanceof net.Server || handle instanceof dgram.Socket ||
    NATIVE_HANDLES.has(handle.constructor?.name);
  if (isHandle && handles) return;
  throw isHandle ? handlesNotSupported() : notAHandle();
}

/**
 * What a backend supplies to control one child.
 * @typedef {object} ChildController
 * @property {(signal: string|0) => boolean} kill send a signal; true if it was sent
 * @property {() => void} ref
 * @property {() => void} unref
 * @property {(message: unknown, callback?: (error: Error|null) => void) => boolean} [send]
 *   IPC: serialize (throwing when it cannot) and send one message; false asks the caller
 *   to slow down
 * @property {() => void} [disconnect] IPC: close the channel after what was sent
 * @property {() => void} [waitForPid] block this thread until the pid is known, where the
 *   backend can ask (helper mode: the sync channel)
 */

/** A child process started by a ProcessHost, shaped like node:child_process's ChildProcess. */
export class HostChild extends EventEmitter {
  /** @type {number|undefined} */ pid = undefined;
  /** @type {import("node:stream").Writable|null} */ stdin = null;
  /** @type {import("node:stream").Readable|null} */ stdout = null;
  /** @type {import("node:stream").Readable|null} */ stderr = null;
  /** @type {Array<import("node:stream").Stream|null>} */ stdio = [null, null, null];
  /** @type {number|null} */ exitCode = null;
  /** @type {string|null} */ signalCode = null;
  killed = false;
  /** @type {string} */ spawnfile;
  /** @type {string[]} */ spawnargs;
  /** Whether send() can reach the child (an IPC channel is open and not disconnected). */
  connected = false;

  #controller;
  #onUnhandledError;
  // Events raised before the caller could attach listeners (spawn() resolves with the
  // child; its `error` or `spawn` may already be known) wait here until release.
  #held = [];
  #released = false;
  // IPC, as child_process keeps it: messages nobody listens for yet wait until a
  // 'message' listener is added, for as long as the channel is open.
  #channelOpen = false;
  #pendingMessages = [];
  // The channel is Node's own (launch/node-channel.js): send and disconnect are Node's.
  #nodeChannel = null;
  #disconnectDelivered = false;

  /**
   * @param {{ spawnfile: string, spawnargs: string[], controller: ChildController,
   *   onUnhandledError: (error: Error, pid: number|undefined) => void }} init
   */
  constructor({ spawnfile, spawnargs, controller, onUnhandledError }) {
    super();
    this.spawnfile = spawnfile;
    this.spawnargs = spawnargs;
    this.#controller = controller;
    this.#onUnhandledError = onUnhandledError;
  }

  /**
   * Sends a signal, like ChildProcess#kill: returns true when it was delivered (or, in
   * helper mode, handed to a helper that still owns the live child).
   * @param {string|number} [signal] default "SIGTERM"
   */
  kill(signal) {
    const name = signal === 0 ? 0 : signalName(signal === undefined ? "SIGTERM" : signal);
    if (this.exitCode !== null || this.signalCode !== null) return false;
    const sent = this.#controller.kill(name);
    // Like ChildProcess#kill, even signal 0 (a liveness probe) marks the child killed.
    if (sent) this.killed = true;
    return sent;
  }

  /**
   * Sends a message over the IPC channel, like ChildProcess#send. Returns false when
   * the caller should wait (for this send's callback) before sending more.
   * @param {unknown} message
   * @param {undefined|null|((error: Error|null) => void)} [handle] handles are not
   *   supported: pass the callback here or leave it out
   * @param {object|((error: Error|null) => void)} [options]
   * @param {(error: Error|null) => void} [callback] once the message was written to the
   *   channel (helper mode: by the helper), or with the error that stopped it
   */
  send(message, handle, options, callback) {
    // Once the channel is gone the answer is ours (an `error` event of this child, which
    // Node's channel would emit on its stand-in after `close`).
    if (this.#nodeChannel && this.connected) return this.#nodeChannel.send(message, handle, options, callback);
    ({ handle, callback } = sendArguments(handle, options, callback));
    if (!this.connected) {
      const error = ipcChannelClosed();
      if (callback) process.nextTick(callback, error);
      else process.nextTick(() => this.emit("error", error));
      return false;
    }
    checkMessage(message, handle);
    return this.#controller.send(message, callback);
  }

  /**
   * For the drop-in face, whose fork() returns before the process exists: a send made
   * in that time, its arguments already checked by the caller. The message is
   * serialized now and waits in the launch (helper mode) until the process exists;
   * the result is send()'s.
   */
  sendBeforeOpen(message, callback, handle, options) {
    return this.#controller.send(message, callback, handle, options);
  }

  /** Closes the IPC channel once what was sent is written; `disconnect` follows. */
  disconnect() {
    if (!this.connected) {
      this.emit("error", ipcDisconnected());
      return;
    }
    this.#closeChannel();
    // Node's own channel says 'disconnect' itself, after its queued handles went out.
    if (this.#nodeChannel) return this.#nodeChannel.disconnect();
    this.#controller.disconnect();
    // Like child_process: the event comes a tick later, never inside disconnect().
    process.nextTick(() => this.channelClosed());
  }

  /**
   * For a backend, before the channel opens: the channel will be Node's own, sends and
   * handles and all, from the start (launch/node-channel.js).
   */
  useNodeChannel(nodeChannel) {
    this.#nodeChannel = nodeChannel;
  }

  /**
   * Node's channel object (ref/unref) while a Node-owned channel is open; undefined
   * otherwise. The drop-in face reads it for its ChildProcess's `channel`.
   */
  get nodeChannelHandle() {
    return this.#nodeChannel ? this.#nodeChannel.channel : undefined;
  }

  /** Lets this child keep the Node process alive until it closes (the default). */
  ref() {
    this.#controller.ref();
  }

  /** Stops this child from keeping the Node process alive. */
  unref() {
    this.#controller.unref();
  }

  /**
   * An `error` nothing listens for must not end the process: it goes to the host's
   * onUnhandledChildError instead of being thrown.
   */
  emit(event, ...args) {
    if (event === "error" && this.listenerCount("error") === 0) {
      this.#onUnhandledError(args[0], this.pid);
      return false;
    }
    if (event === "message" && this.listenerCount("message") === 0) {
      if (this.#channelOpen) this.#pendingMessages.push(args);
      return false;
    }
    return super.emit(event, ...args);
  }

  /** For a backend, once the process exists: it has an IPC channel; send() works from now on. */
  openChannel() {
    this.connected = true;
    this.#channelOpen = true;
    this.on("newListener", (event) => {
      if (event === "message") process.nextTick(() => this.#flushPendingMessages());
    });
    this.#nodeChannel?.open();
  }

  /** For a relayed channel (launch/ipc.js): one message from the child, already parsed (NODE_ ones filtered out). */
  receiveMessage(message) {
    if (this.#nodeChannel) return;
    if (this.#channelOpen) this.deliver("message", message, undefined);
  }

  /**
   * For a backend, when the channel is gone (the child disconnected or exited, or we
   * did): `disconnect` is delivered, once.
   */
  channelClosed() {
    this.#closeChannel();
    if (this.#disconnectDelivered) return;
    this.#disconnectDelivered = true;
    this.deliver("disconnect");
  }

  #closeChannel() {
    this.connected = false;
    this.#channelOpen = false;
    this.#pendingMessages = [];
  }

  #flushPendingMessages() {
    if (!this.#channelOpen || this.listenerCount("message") === 0) return;
    for (const args of this.#pendingMessages.splice(0)) super.emit("message", ...args);
  }

  /**
   * The pid, waiting on this thread for the helper's answer when it is not known yet:
   * the drop-in's `pid`, readable right after its spawn() returns (docs/sync.md).
   * Undefined when the launch failed, or when it cannot be asked about now (the
   * main channel's socket is full: the spawn has not reached the helper yet).
   * @returns {number|undefined}
   */
  waitForPid() {
    if (this.pid === undefined) this.#controller.waitForPid?.();
    return this.pid;
  }

  /** spawnhost/pty: a terminal child's new window size; false before the helper holds the child or after its exit. */
  resize(cols, rows) {
    try {
      return this.#controller.resize?.(cols, rows) === true;
    } catch {
      return false; // the helper is gone: its exit comes as the child's
    }
  }

  /** For a backend, as it creates the child: the pipes for fds 0, 1, 2 (null for "ignore"/"inherit"). */
  attachStdio(stdin, stdout, stderr) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.stderr = stderr;
    this.stdio = [stdin, stdout, stderr];
  }

  /**
   * For a backend or face that raises one of this child's events: emitted now if the
   * caller holds the child (release() was called), else held until then, in order.
   */
  deliver(event, ...args) {
    if (this.#released) this.emit(event, ...args);
    else this.#held.push([event, args]);
  }

  /** For a backend: runs `step` right after the events delivered so far (now, once released). */
  afterDelivered(step) {
    if (this.#released) step();
    else this.#held.push([step]);
  }

  /**
   * For whoever started the launch (ProcessHost, the faces), once the caller holds the
   * child and could listen: raises what deliver() held back, in order, and every later
   * event at once. Called once; more calls do nothing.
   */
  release() {
    if (this.#released) return;
    this.#released = true;
    for (const [event, args] of this.#held.splice(0)) {
      if (typeof event === "function") event();
      else this.emit(event, ...args);
    }
  }
}

/**
 * Kills the child when `signal` aborts and reports an AbortError whose cause is the
 * signal's reason, like child_process's `signal` option (abortChildProcess).
 * @param {HostChild} child
 * @param {AbortSignal|undefined} signal
 * @param {string} killSignal
 */
export function watchAbortSignal(child, signal, killSignal) {
  if (!signal) return;
  const onAbort = () => {
    try {
      if (child.kill(killSignal)) child.deliver("error", new AbortError(signal.reason));
    } catch (error) {
      child.deliver("error", error);
    }
  };
  if (signal.aborted) {
    process.nextTick(onAbort);
    return;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  child.once("exit", () => signal.removeEventListener("abort", onAbort));
  child.once("close", () => signal.removeEventListener("abort", onAbort));
}

/** The default onUnhandledChildError: a process warning, never a crash. */
export function warnUnhandledChildError(error, pid) {
  process.emitWarning(`child process ${pid ?? "(not started)"} reported an error nothing listened for: ${error?.message ?? error}`, {
    type: "SpawnhostWarning",
    code: "SPAWNHOST_UNHANDLED_CHILD_ERROR",
  });
}
