// The ChildProcess the drop-in face returns synchronously from spawn, fork, exec and
// execFile. It fronts a HostChild whose launch the helper is still carrying out: the
// streams exist at once (stdin writes wait in the launch), a kill() that comes before
// the process exists is applied as soon as it does, and the HostChild's events are
// re-emitted here with Node's fields set first, so listeners see what Node shows.
import { EventEmitter } from "node:events";
import { deprecate, getSystemErrorMap } from "node:util";
import { AbortError, ipcDisconnected } from "../core/errors.js";
import { startCallTimer } from "../core/deadline.js";
import { checkMessage, sendArguments } from "../launch/host-child.js";
import { asNodeError } from "./node-errors.js";
import { nodeChildProcess } from "./shared-host.js";

const FORWARDED = ["spawn", "error", "exit", "close", "disconnect", "internalMessage"];
// libuv's ESRCH ("already dead" to ChildProcess#kill): -3 on POSIX, -4040 on Windows.
const UV_ESRCH = [...getSystemErrorMap()].find(([, [name]]) => name === "ESRCH")[0];
// child_process's own words for its deprecated alias of `channel`.
// Node 26 removed the alias (DEP0129's end of life); its forked children have none.
const HAS_CHANNEL_ALIAS = Number(process.versions.node.split(".")[0]) < 26;
const channelAlias = (accessor) => deprecate(accessor, "_channel is deprecated. Use ChildProcess.channel instead.", "DEP0129");

/**
 * A child_process ChildProcess backed by a spawnhost launch. `instanceof
 * ChildProcess` holds: its prototype chain runs through ChildProcess.prototype. It
 * does not run ChildProcess's constructor, which would create a libuv process handle
 * this object never uses.
 */
export class DropInChildProcess extends EventEmitter {
  #host;
  #spawned = false;
  #settled = false;
  #pendingKill = null;
  /** @type {{ disconnect: boolean } | null} */
  #earlyChannel = null;
  #abort = null;
  // While pid waits for the helper, events the wait delivers are held for a tick:
  // Node never emits from inside a property read.
  #holding = 0;
  #held = [];
  #translateError;

  /**
   * @param {import("../launch/host-child.js").HostChild} hostChild released by the caller
   * @param {Promise<void>} launched the launch's outcome (rejected: nothing ran)
   * @param {{ ipc?: boolean, signal?: AbortSignal, killSignal?: string, timeout?: number,
   *   translateError?: (error: Error) => Error }} [how] signal and timeout: handled here
   *   rather than by the launch, so they act as Node's do (on a process that exists);
   *   translateError: the object `error` listeners get (default: asNodeError)
   */
  constructor(hostChild, launched, how) {
    super();
    // Read from its own properties: execFile leaves `timeout` and `ipc` out, and an
    // Object.prototype.timeout must not become the timer Node's execFile never sets.
    const { ipc = false, signal, killSignal = "SIGTERM", timeout = 0, translateError = asNodeError } = { __proto__: null, ...how };
    this.#host = hostChild;
    this.#translateError = translateError;
    this.connected = false;
    // Read through to the HostChild, which sets them before it ends stdin and before
    // `exit`, in Node's order (execa tells Node's own stdin clean-up from an abort by
    // looking at exitCode inside stdin's destroy).
    for (const field of ["signalCode", "exitCode", "killed"]) {
      Object.defineProperty(this, field, {
        enumerable: true,
        configurable: true,
        get: () => hostChild[field],
        set: (value) => { hostChild[field] = value; },
      });
    }
    this.spawnfile = hostChild.spawnfile;
    this.spawnargs = hostChild.spawnargs;
    // Known once the helper answered; read earlier, it waits for that answer when the
    // channel can (HostChild#waitForPid), else it is undefined until `spawn`.
    Object.defineProperty(this, "pid", {
      enumerable: true,
      configurable: true,
      get: () => this.#readPid(),
      set: (value) => Object.defineProperty(this, "pid", { value, writable: true, enumerable: true, configurable: true }),
    });
    this.stdin = hostChild.stdin;
    this.stdout = hostChild.stdout;
    this.stderr = hostChild.stderr;
    this.stdio = ipc ? [...hostChild.stdio, null] : [...hostChild.stdio];
    if (ipc) this.#addChannel();
    for (const event of FORWARDED) hostChild.on(event, (...args) => this.#forward(event, args));
    if (signal) this.#watchAbort(signal, killSignal);
    this.#killAtDeadline(timeout, killSignal);
    launched.catch((error) => this.#launchFailed(error));
  }

  /**
   * What ChildProcess#kill (inherited: Node's own, or whatever replaced it on
   * ChildProcess.prototype) drives after validating the signal, in place of libuv's
   * process handle: `kill(signal)` returns 0 when sent, else UV_ESRCH (kill() is then
   * false). Before the process exists the signal is kept and sent the moment it does,
   * and kill() returns true, as Node's does for a process it has. Nothing else of
   * Node's handle is here.
   */
  get _handle() {
    return this.#handle;
  }

  #handle = {
    kill: (signal) => {
      if (this.#spawned) return this.#host.kill(signal) ? 0 : UV_ESRCH;
      if (this.#settled) return UV_ESRCH;
      if (signal !== 0) this.#pendingKill = signal;
      return 0;
    },
  };

  /** Lets this child keep Node alive until it closes (the default). */
  ref() {
    this.#host.ref();
  }

  /** Stops this child from keeping Node alive. */
  unref() {
    this.#host.unref();
  }

  // Node gives `send`, `disconnect`, `channel` and a live `connected` only to children
  // with an IPC channel, and code tests for them (typeof child.send === "function").
  // Node's channel is open when fork() returns; this one opens when the helper has
  // started the child. Until then it reads as connected; what is sent is checked and
  // serialized at once, as Node does, and waits in the launch (send() says false past
  // the same backlog as later); a disconnect waits here and goes out at `spawn`.
  #addChannel() {
    const host = this.#host;
    const early = { disconnect: false };
    this.#earlyChannel = early;
    Object.defineProperty(this, "connected", {
      enumerable: true,
      configurable: true,
      get: () => (this.#spawned || this.#settled ? host.connected : !early.disconnect),
      set() {},
    });
    // Node's channel object (its Control: ref/unref, and the counted forms its
    // 'message' listeners use, which execa calls too). Here the channel holds nothing
    // of its own that keeps Node alive: the launch does, released by child.unref().
    // It is null once the channel is closed: disconnect() sets that at once, as Node's
    // does; the child's end of it, just before `disconnect`. `_channel` is Node's
    // deprecated alias of it.
    // A channel of Node's own (launch/node-channel.js) is Node's to ref and unref.
    // Once the child runs it is Node's own channel object, null from the channel's end.
    const own = () => host.nodeChannelHandle;
    const placeholder = {
      ref() { own()?.ref(); }, unref() { own()?.unref(); },
      refCounted() { own()?.refCounted(); }, unrefCounted() { own()?.unrefCounted(); },
      fd: undefined,
    };
    let assigned = { set: false, value: null };
    Object.defineProperty(this, "channel", {
      enumerable: true,
      configurable: true,
      get: () => {
        if (assigned.set) return assigned.value;
        const channel = own();
        return channel === undefined || !(this.#spawned || this.#settled) ? placeholder : channel;
      },
      set: (value) => { assigned = { set: true, value }; },
    });
    if (HAS_CHANNEL_ALIAS) {
      Object.defineProperty(this, "_channel", {
        configurable: true,
        enumerable: false,
        get: channelAlias(() => this.channel),
        set: channelAlias((value) => { this.channel = value; }),
      });
    }
    this.send = (message, handle, options, callback) => {
      if (this.#spawned || this.#settled || early.disconnect) return host.send(message, handle, options, callback);
      const sent = { handle, options };
      ({ handle, callback } = sendArguments(handle, options, callback));
      // A channel of Node's own (launch/node-channel.js) takes handles from the start.
      const own = host.nodeChannelHandle !== undefined;
      checkMessage(message, handle, { handles: own });
      return own ? host.sendBeforeOpen(message, callback, handle, typeof sent.options === "object" ? sent.options : undefined) : host.sendBeforeOpen(message, callback);
    };
    this.disconnect = () => {
      // Emitted here, synchronously, as Node's: unheard, it throws out of disconnect().
      if (!this.connected) {
        this.emit("error", ipcDisconnected());
        return;
      }
      this.channel = null;
      if (this.#spawned || this.#settled) return host.disconnect();
      early.disconnect = true;
    };
    // Messages wait in the HostChild (as in Node) until someone listens here.
    let forwarding = false;
    this.on("newListener", (event) => {
      if (event !== "message" || forwarding) return;
      forwarding = true;
      host.on("message", (...args) => this.#forward("message", args));
    });
  }

  #readPid() {
    const host = this.#host;
    if (host.pid === undefined && !this.#settled && typeof host.waitForPid === "function") {
      this.#holding++;
      try {
        host.waitForPid();
      } finally {
        this.#holding--;
      }
    }
    return host.pid;
  }

  #forward(event, args) {
    if (this.#holding > 0 || this.#held.length > 0) {
      if (this.#held.push([event, args]) === 1) process.nextTick(() => this.#flushHeld());
      return;
    }
    this.#emitSafely(event, args);
  }

  #flushHeld() {
    for (const [event, args] of this.#held.splice(0)) this.#emitSafely(event, args);
  }

  // Events arrive while the channel handles a batch of the helper's messages. A
  // listener that throws (or an `error` nobody listens for) must not cut that batch
  // short for every other child: the exception is thrown again on the next tick,
  // where, as with Node, it is uncaught.
  #emitSafely(event, args) {
    try {
      this.#emitNodeStyle(event, args);
    } catch (error) {
      process.nextTick(() => { throw error; });
    }
  }

  #emitNodeStyle(event, args) {
    switch (event) {
      case "spawn":
        this.#spawned = true;
        // A kill that came before the process existed: the process has it first.
        if (this.#pendingKill !== null) this.#host.kill(this.#pendingKill);
        this.#flushEarlyChannel();
        this.emit("spawn");
        if (this.#abort?.pending) this.#abort.act();
        return;
      case "error":
        this.#settled ||= !this.#spawned;
        this.emit("error", this.#translateError(args[0]));
        return;
      case "exit":
        this.emit("exit", ...args);
        return;
      case "close":
        this.#settled = true;
        this.emit("close", ...args);
        return;
      case "disconnect":
        this.channel = null;
        this.emit("disconnect");
        return;
      default:
        this.emit(event, ...args);
    }
  }

  #flushEarlyChannel() {
    const early = this.#earlyChannel;
    if (!early) return;
    this.#earlyChannel = null;
    if (early.disconnect) this.#host.disconnect();
  }

  // The helper went away, or the launch failed the way Node's spawn() throws (ENOTDIR
  // for a cwd that is a file, EPERM for a uid): nothing was emitted for it, so the
  // child reports it as an error and closes, its outputs ended.
  #launchFailed(error) {
    if (this.#spawned || this.#settled) return;
    this.#settled = true;
    this.#host.stdin?.destroy();
    for (const stream of [this.#host.stdout, this.#host.stderr]) {
      if (stream && !stream.destroyed && !stream.readableEnded) stream.push(null);
    }
    this.#earlyChannel = null;
    const code = typeof error?.errno === "number" ? error.errno : null;
    this.#host.exitCode = code;
    this.#forward("error", [error]);
    process.nextTick(() => this.#forward("close", [code, null]));
  }

  // spawn's `timeout` as Node applies it: a kill (which waits for a process that does
  // not exist yet) after `timeout` ms, unless the child exited first.
  #killAtDeadline(timeout, killSignal) {
    const timer = startCallTimer({ timeout }, () => {
      try {
        this.kill(killSignal);
      } catch (error) {
        this.emit("error", error);
      }
    });
    if (timer) this.once("exit", () => clearTimeout(timer));
  }

  // The `signal` option as Node's spawn applies it, whose process exists at the call and
  // whose `spawn` comes on the tick after it. An abort in the call's own tick acts at
  // once: the kill waits for the process, the `error` is emitted inside abort(), before
  // `spawn`, as Node's is. A later abort acts at once on a child that has emitted
  // `spawn`; while the launch is still on its way (a slow start, a busy machine), it
  // waits for `spawn`, which Node's child had emitted by then: execFile's callback and
  // an `await once(child, "spawn")` must not hear of the abort first. A launch that fails
  // instead gives no abort error, as Node's kill() of no process gives none. A signal
  // already aborted at the call acts at `spawn` too: spawn, error, exit, close.
  #watchAbort(signal, killSignal) {
    const abort = {
      pending: false,
      act: () => {
        abort.pending = false;
        // Through the HostChild, so that execFile's collector hears it first, as
        // Node's execFile hears its child's `error` before anyone else.
        try {
          if (this.kill(killSignal)) this.#host.deliver("error", new AbortError(signal.reason));
        } catch (error) {
          this.#host.deliver("error", error);
        }
      },
    };
    this.#abort = abort;
    let callTickPassed = false;
    const onAbort = () => {
      if (this.#settled) return;
      if (this.#spawned || !callTickPassed) abort.act();
      else abort.pending = true;
    };
    if (signal.aborted) {
      abort.pending = true;
      return;
    }
    process.nextTick(() => { callTickPassed = true; });
    signal.addEventListener("abort", onAbort, { once: true });
    this.once("exit", () => signal.removeEventListener("abort", onAbort));
    this.once("close", () => signal.removeEventListener("abort", onAbort));
  }
}

// Methods and symbols ChildProcess.prototype has (spawn, Symbol.dispose, ...) come
// after ours; EventEmitter's come after ChildProcess's, as for Node's own children.
Object.setPrototypeOf(DropInChildProcess.prototype, nodeChildProcess.ChildProcess.prototype);
// child.constructor is ChildProcess, as for Node's children (util.inspect shows it too).
Object.defineProperty(DropInChildProcess.prototype, "constructor", {
  value: nodeChildProcess.ChildProcess, writable: true, configurable: true, enumerable: false,
});
