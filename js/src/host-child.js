// HostChild: the ChildProcess look-alike both backends hand out. The backend drives it
// through the underscore methods; users see child_process's fields, events and order.
import { EventEmitter } from "node:events";
import { signalName } from "./options.js";
import { AbortError } from "./errors.js";

/**
 * What a backend supplies to control one child.
 * @typedef {object} ChildController
 * @property {(signal: string|0) => boolean} kill send a signal; true if it was sent
 * @property {() => void} ref
 * @property {() => void} unref
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

  #controller;
  #onUnhandledError;
  // Events raised before the caller could attach listeners (spawn() resolves with the
  // child; its `error` or `spawn` may already be known) wait here until release.
  #held = [];
  #released = false;

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
    return super.emit(event, ...args);
  }

  /** Backend: the pipes for fds 0, 1, 2 (null for "ignore"/"inherit"). */
  _attachStdio(stdin, stdout, stderr) {
    this.stdin = stdin;
    this.stdout = stdout;
    this.stderr = stderr;
    this.stdio = [stdin, stdout, stderr];
  }

  /** Backend: raise an event now, or once the caller has the child. */
  _deliver(event, ...args) {
    if (this.#released) this.emit(event, ...args);
    else this.#held.push([event, args]);
  }

  /** Backend: run `step` right after the events delivered so far (now, once released). */
  _afterDelivered(step) {
    if (this.#released) step();
    else this.#held.push([step]);
  }

  /** Host: the caller holds the child now; raise what was held back, in order. */
  _release() {
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
      if (child.kill(killSignal)) child._deliver("error", new AbortError(signal.reason));
    } catch (error) {
      child._deliver("error", error);
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
