// The sync channel: a second conversation with the same helper, over a socket that a
// blocked thread can hold. spawnSync and an early `pid` read cannot use the main
// channel: its socket belongs to the event loop, which they block. Here everything is a
// system call on this thread (fs.writeSync / fs.readSync on a non-blocking descriptor,
// sleeping between tries), with the same frames and the same FrameReader; the helper
// serves it with a second session (helper/session/session.hpp). docs/sync.md has the design,
// why it has no name in the file system, and what the polling costs. On Windows it is a
// named pipe instead (windows.js), used the same way once open.
import { closeSync, readSync, writeSync } from "node:fs";
import { FrameReader, encodeBytesHead, encodeFrame } from "../protocol/frames.js";
import { MAX_DATA_CHUNK, PROTOCOL_VERSION } from "../protocol/generated.js";
import { HelperExitedError, HelperVersionError, ProtocolError } from "../core/errors.js";
import { PIPE_WRITE_MAX, PIPE_READ_WOULD_WAIT, SOCKET_WOULD_WAIT, openSyncPipe } from "./windows.js";

const READ_BYTES = 64 * 1024;
const MAX_ID = 0xffffffff;
// Sleeping between tries while nothing moves: an eighth of the time waited so far, at
// least MIN_STEP_MS (the system's timer slack makes that ~0.1 ms) and at most
// MAX_STEP_MS. An answer is seen within ~12% of its own delay (at most 20 ms late); a
// long wait costs 50 tries a second (docs/sync.md has the measured cost).
const MIN_STEP_MS = 0.05;
const MAX_STEP_MS = 20;
const STEP_FRACTION = 1 / 8;
// Past a call's own timeout the helper should be ending its child: a live one answers a
// ping within a few ms, so one silent this long after it is given up on (the call ends
// the child itself), though the helper is judged hung only by answerMs (liveness.js).
export const LATE_ANSWER_MS = 100;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const GAVE_UP = Symbol("gave up on the helper");

/**
 * What a fault on the channel means for its helper: "dead" (its end of the socket
 * closed), "hung" (it stopped answering: kill it), "broken" (it broke the protocol here:
 * take no new work to it).
 * @typedef {"dead"|"hung"|"broken"} SyncFault
 */

/** One helper's sync channel: a socket made with the helper, used from the first blocking call. */
export class SyncChannel {
  #packageVersion;
  #helperPath;
  #answerMs;
  #onFault;
  /** @type {import("node:net").Socket|null} the socket libuv made; never read by the event loop */
  #socket;
  /** @type {string|null} Windows: the helper's named pipe, opened by the first blocking call */
  #pipeName;
  #fd = -1;
  #readEmpty = SOCKET_WOULD_WAIT;
  #writeMax = Infinity;
  #reader = new FrameReader("to_node");
  #chunk = Buffer.allocUnsafe(READ_BYTES);
  /** @type {{ name: string, values: unknown[] }[]} decoded, not yet taken */
  #pending = [];
  #helloChecked = false;
  #used = false;
  /** @type {Error|null} why the channel cannot be used any more */
  #broken = null;
  #nextId = 1;
  #lastHeard = 0;
  #pingSentAt = null;

  /**
   * Takes the helper's extra stdio socket (its `--sync-fd`) from the event loop: libuv
   * started reading it when the ChildProcess was made, in this same tick, so nothing was
   * read yet. From here on only this thread reads and writes it.
   * @param {{ packageVersion: string, helperPath: string, socket?: import("node:net").Socket|null,
   *   pipe?: string|null, answerMs: number, onFault?: (fault: SyncFault, error: Error, reason: string) => void }} options
   *   pipe (instead of socket): the name of the Windows helper's sync pipe
   *   onFault: the channel failed mid-call; the Channel retires or kills the helper, so
   *   that the next call starts on a fresh one
   */
  constructor({ packageVersion, helperPath, socket, pipe, answerMs, onFault }) {
    this.#packageVersion = packageVersion;
    this.#helperPath = helperPath;
    this.#answerMs = answerMs;
    this.#onFault = onFault;
    this.#socket = socket ?? null;
    this.#pipeName = pipe ?? null;
    const handle = socket?._handle;
    if (this.#pipeName) {
      this.#readEmpty = PIPE_READ_WOULD_WAIT;
      this.#writeMax = PIPE_WRITE_MAX;
    } else if (handle && Number.isInteger(handle.fd) && handle.fd >= 0) {
      handle.readStop();
      handle.reading = false;
      this.#fd = handle.fd;
    } else {
      this.#broken = new HelperExitedError(`spawnhost helper ${helperPath} could not be run, so it has no sync channel`);
    }
  }

  /** Whether a request was sent on it (the helper may have acted on something). */
  get opened() {
    return this.#used;
  }

  /**
   * Makes the channel ready for a call: checks the helper's hello on it the first time,
   * waiting at most answerMs for it. Throws when it cannot be used.
   */
  open() {
    if (this.#broken) throw this.#broken;
    if (!this.#helloChecked) {
      const deadline = performance.now() + this.#answerMs;
      const ready = this.#fd < 0 && this.#pipeName ? this.#openPipe(deadline) : -1;
      try {
        this.#checkHello(deadline);
      } finally {
        if (ready >= 0) closeSync(ready);
      }
    }
    // A call that gave up on the helper at its timeout left a ping unanswered: the
    // helper answers it (within answerMs of its sending) before it gets more work, or
    // is hung (killed), and the caller may go to a fresh one, nothing sent yet.
    if (this.#pingSentAt !== null) this.#nextFrame(() => this.#hungAfterPing(performance.now()), () => this.#pingSentAt === null);
  }

  /** A fresh id for a request on this channel (its own id space, never 0). */
  nextId() {
    const id = this.#nextId;
    this.#nextId = id >= MAX_ID ? 1 : id + 1;
    return id;
  }

  /** Sends one message, waiting while the socket is full. */
  send(name, fields) {
    this.#writeAll(encodeFrame(name, fields));
  }

  /** Sends `bytes` as `write` frames of at most MAX_DATA_CHUNK each, uncopied. */
  sendBytes(name, id, bytes) {
    for (let at = 0; at < bytes.length; at += MAX_DATA_CHUNK) {
      const piece = bytes.subarray(at, at + MAX_DATA_CHUNK);
      this.#writeAll(encodeBytesHead(name, id, piece.length));
      this.#writeAll(piece);
    }
  }

  /**
   * Waits for the helper's next message. The helper must stay alive meanwhile: after
   * answerMs of silence it is asked for a pong, which must come within answerMs. From
   * `deadline` on (a performance.now() time: the call's own timeout) the helper should
   * be ending the child: it is asked as soon as it has been silent `lateAnswerMs`
   * (LATE_ANSWER_MS unless given; at most half of answerMs), and when that ping goes
   * unanswered as long, the wait ends with null (the caller ends the call; the ping
   * stays owed, for the next call's open()). Throws when the helper is gone, hung or
   * broke the protocol; the channel is then unusable, and its owner was told (onFault).
   * @param {{ deadline?: number, lateAnswerMs?: number }} [wait]
   * @returns {{ name: string, values: unknown[] } | null}
   */
  receive(wait = {}) {
    if (this.#broken) throw this.#broken;
    const message = this.#nextFrame((now) => {
      const late = now >= (wait.deadline ?? Infinity);
      const quietMs = late ? Math.min(wait.lateAnswerMs ?? LATE_ANSWER_MS, this.#answerMs / 2) : this.#answerMs;
      if (this.#pingSentAt !== null) {
        if (late && now - this.#pingSentAt >= quietMs) return GAVE_UP;
        this.#hungAfterPing(now);
      } else if (now - this.#lastHeard >= quietMs) {
        this.#pingSentAt = now;
        this.#writeAll(encodeFrame("ping", [0]));
      }
    });
    if (message === GAVE_UP) return null;
    if (message.name === "error" && message.values[1]) {
      throw this.#fault("broken", `it reported a fatal error on its sync channel: ${message.values[2]}`);
    }
    return message;
  }

  /** The helper is gone: the socket is closed and every later call throws. */
  close() {
    this.#broken ??= new HelperExitedError(`spawnhost helper ${this.#helperPath} has ended`);
    // A pipe's descriptor is ours; a socket's is its Socket's.
    if (this.#pipeName && this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
    this.#socket?.destroy();
    this.#socket = null;
  }

  #hungAfterPing(now) {
    if (now - this.#pingSentAt >= this.#answerMs) {
      throw this.#fault("hung", `it did not answer on its sync channel within ${this.#answerMs} ms`);
    }
  }

  // The next frame the helper sent (or, with `done`, nothing once done() holds): reads
  // what the socket holds and, while nothing came, lets `idle(now)` ping or give up (it
  // throws, or returns what the wait ends with), then sleeps a share of the time waited.
  #nextFrame(idle, done) {
    let idleFrom = performance.now();
    while (done ? !done() : this.#pending.length === 0) {
      if (this.#pump()) {
        idleFrom = performance.now();
        continue;
      }
      const now = performance.now();
      const ended = idle(now);
      if (ended !== undefined) return ended;
      pause(now - idleFrom);
    }
    return done ? undefined : this.#pending.shift();
  }

  // It serves the main channel without one (its stderr says why): no blocking call can
  // run on this helper, but nothing else is wrong with it.
  #noHello(why = "said no hello on its sync channel") {
    this.#broken = new HelperExitedError(`spawnhost helper ${this.#helperPath} ${why} within ${this.#answerMs} ms`);
    return this.#broken;
  }

  // Opens the Windows helper's pipe; returns the descriptor of its second instance, to
  // be closed once the hello came (openSyncPipe says why).
  #openPipe(deadline) {
    let opened;
    try {
      opened = openSyncPipe(this.#pipeName, deadline, pause);
    } catch (error) {
      throw this.#noHello(`could not open its sync pipe (${error.message})`);
    }
    if (opened === null) throw this.#noHello("did not open its sync pipe to Node");
    this.#fd = opened.fd;
    return opened.ready;
  }

  #checkHello(deadline) {
    const { name, values } = this.#nextFrame((now) => {
      if (now >= deadline) throw this.#noHello();
    });
    if (name !== "hello") throw this.#fault("broken", `its sync channel began with ${name}, not hello`);
    const [protocol, version] = values;
    if (protocol !== PROTOCOL_VERSION || version !== this.#packageVersion) {
      throw this.#fault("broken", "", new HelperVersionError(
        `spawnhost helper ${this.#helperPath} speaks protocol ${protocol} of version ${version}, ` +
        `but this package (spawnhost ${this.#packageVersion}) needs protocol ${PROTOCOL_VERSION} of version ${this.#packageVersion}`));
    }
    this.#helloChecked = true;
  }

  // Reads what the socket holds now, without waiting; true when something came.
  #pump() {
    let got = false;
    for (;;) {
      const n = tryNonBlocking(() => readSync(this.#fd, this.#chunk, 0, READ_BYTES, null), (error) => {
        throw this.#fault("dead", `reading its sync channel failed: ${error.message}`);
      }, this.#readEmpty);
      if (n === null) return got;
      // The helper holds the only other end: end of file means it exited.
      if (n === 0) throw this.#fault("dead", "its sync channel ended");
      got = true;
      this.#lastHeard = performance.now();
      this.#pingSentAt = null;
      // The reader may keep views of the chunk (data payloads): the next read gets a new one.
      const chunk = this.#chunk.subarray(0, n);
      this.#chunk = Buffer.allocUnsafe(READ_BYTES);
      try {
        for (const message of this.#reader.push(chunk)) {
          if (message.name !== "pong") this.#pending.push(message);
        }
      } catch (error) {
        throw this.#fault("broken", `it broke the protocol on its sync channel: ${error.message}`, error);
      }
      if (n < READ_BYTES) return true;
    }
  }

  #writeAll(bytes) {
    if (this.#broken) throw this.#broken;
    this.#used = true;
    let idleFrom = performance.now();
    for (let at = 0; at < bytes.length;) {
      const n = tryNonBlocking(() => writeSync(this.#fd, bytes, at, Math.min(bytes.length - at, this.#writeMax)), (error) => {
        // EPIPE: the helper, the only reader, is gone (Node ignores SIGPIPE).
        throw this.#fault("dead", `writing to its sync channel failed: ${error.message}`);
      }, SOCKET_WOULD_WAIT);
      // A full pipe (Windows) takes nothing and says so with 0.
      if (n !== null && n > 0) {
        at += n;
        idleFrom = performance.now();
        continue;
      }
      // Full. A live helper always reads its side; what it sent meanwhile is kept, so
      // that it never waits for us while we wait for it.
      if (this.#pump()) {
        idleFrom = performance.now();
        continue;
      }
      const now = performance.now();
      if (now - Math.max(idleFrom, this.#lastHeard) >= this.#answerMs) {
        throw this.#fault("hung", `it read nothing on its sync channel for ${this.#answerMs} ms`);
      }
      pause(now - idleFrom);
    }
  }

  // The channel cannot be used any more (its byte stream is lost): this call fails with
  // the error; the owner retires or kills the helper, so the next call starts afresh.
  #fault(kind, reason, cause) {
    if (this.#broken) return this.#broken;
    let error = cause;
    if (!(cause instanceof HelperVersionError)) {
      error = new HelperExitedError(`spawnhost helper ${this.#helperPath} ${kind === "hung" ? "stopped answering" : "went away"} during a synchronous call (${reason})`);
      if (kind === "hung") error.hung = true;
      if (cause instanceof ProtocolError) error.cause = cause;
    }
    this.#broken = error;
    this.#onFault?.(kind, error, reason || error.message);
    return error;
  }
}

// One non-blocking system call: its result, or null when it would have waited (an error
// named in `empty`). Other errors go to `failed`. The "would wait" errors are made
// without a stack trace: the polling loops see many.
function tryNonBlocking(call, failed, empty) {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (;;) {
      try {
        return call();
      } catch (error) {
        if (empty.has(error.code)) return null;
        if (error.code !== "EINTR") {
          Error.stackTraceLimit = limit;
          return failed(error);
        }
      }
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function pause(idleMs) {
  Atomics.wait(sleeper, 0, 0, Math.min(MAX_STEP_MS, Math.max(MIN_STEP_MS, idleMs * STEP_FRACTION)));
}
