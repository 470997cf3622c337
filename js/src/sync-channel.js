// The sync channel: a second conversation with the same helper, over two FIFOs, that a
// blocked thread can hold. spawnSync and an early `pid` read cannot use the main
// channel: its socket belongs to the event loop, which they block. Here everything is a
// blocking system call on this thread (fs.writeSync / fs.readSync), with the same
// frames and the same FrameReader; the helper serves it with a second session
// (helper/session.hpp). docs/sync.md has the design and its costs.
import { closeSync, constants, existsSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrameReader, encodeBytesHead, encodeFrame } from "./protocol.js";
import { MAX_DATA_CHUNK, PROTOCOL_VERSION } from "./protocol-generated.js";
import { HelperExitedError, HelperVersionError, ProtocolError } from "./errors.js";

const READ_BYTES = 64 * 1024;
// How long one sleep lasts while the helper has not created the FIFOs yet.
const WAIT_STEP_MS = 1;
const MAX_ID = 0xffffffff;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** One helper's sync channel: created with the helper, opened on first use. */
export class SyncChannel {
  #dir;
  #packageVersion;
  #helperPath;
  #requestFd = -1;
  #replyFd = -1;
  #reader = new FrameReader("to_node");
  /** @type {{ name: string, values: unknown[] }[]} decoded, not yet taken */
  #pending = [];
  #helloChecked = false;
  /** @type {Error|null} why the channel cannot be used any more */
  #broken = null;
  #nextId = 1;

  /**
   * Makes the private directory the helper creates the FIFOs in (mode 0700: no other
   * user can open them); pass `dir` to the helper as `--sync-fifos`.
   * @param {{ packageVersion: string, helperPath: string }} options
   */
  constructor({ packageVersion, helperPath }) {
    this.#packageVersion = packageVersion;
    this.#helperPath = helperPath;
    this.#dir = mkdtempSync(join(tmpdir(), "spawnhost-sync-"));
  }

  /** The directory for the helper's `--sync-fifos`. */
  get dir() {
    return this.#dir;
  }

  /** Whether the FIFOs are open (no wait needed for the next call). */
  get opened() {
    return this.#replyFd >= 0;
  }

  /**
   * Opens the FIFOs if the helper has created them; true once open. Their names are
   * removed at once: nothing else can open them after us.
   */
  openIfReady() {
    if (this.#replyFd >= 0) return true;
    if (this.#broken || !existsSync(join(this.#dir, "reply"))) return false;
    // Both never block: the helper holds each FIFO open for reading and writing. No
    // O_CREAT ("w" would have it): a name that is not the helper's FIFO fails here
    // instead of becoming a file nobody reads.
    try {
      this.#requestFd = openSync(join(this.#dir, "request"), constants.O_WRONLY);
      this.#replyFd = openSync(join(this.#dir, "reply"), constants.O_RDONLY);
    } catch (error) {
      const failure = this.#break(this.#gone(`opening its sync channel failed: ${error.message}`));
      this.close();
      throw failure;
    } finally {
      this.#removeDir();
    }
    return true;
  }

  /**
   * Opens the channel, sleeping in steps of WAIT_STEP_MS until the helper has created
   * the FIFOs (it does so first thing, before its hello), for at most `waitMs`.
   * Then checks the helper's hello on it. Throws when it cannot.
   * @param {number} waitMs
   */
  open(waitMs) {
    if (this.#broken) throw this.#broken;
    const deadline = performance.now() + waitMs;
    while (!this.openIfReady()) {
      if (performance.now() >= deadline) {
        throw this.#break(new HelperExitedError(waitMs > 0
          ? `spawnhost helper ${this.#helperPath} created no sync channel within ${waitMs} ms`
          : `spawnhost helper ${this.#helperPath} created no sync channel (its stderr says why)`));
      }
      Atomics.wait(sleeper, 0, 0, WAIT_STEP_MS);
    }
    if (!this.#helloChecked) this.#checkHello();
  }

  /** A fresh id for a request on this channel (its own id space, never 0). */
  nextId() {
    const id = this.#nextId;
    this.#nextId = id >= MAX_ID ? 1 : id + 1;
    return id;
  }

  /** Sends one message, blocking until the FIFO took it. */
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
   * Blocks until the helper's next message; throws when the helper is gone or broke
   * the protocol (and every later call throws the same).
   * @returns {{ name: string, values: unknown[] }}
   */
  receive() {
    if (this.#broken) throw this.#broken;
    while (this.#pending.length === 0) {
      const chunk = Buffer.allocUnsafe(READ_BYTES);
      let n;
      try {
        n = readSync(this.#replyFd, chunk, 0, READ_BYTES, null);
      } catch (error) {
        throw this.#break(this.#gone(`reading its sync channel failed: ${error.message}`));
      }
      // The helper is the only writer: end of file means it exited.
      if (n === 0) throw this.#break(this.#gone("its sync channel ended"));
      try {
        this.#pending.push(...this.#reader.push(chunk.subarray(0, n)));
      } catch (error) {
        throw this.#break(this.#gone(`it broke the protocol on its sync channel: ${error.message}`, error));
      }
    }
    const message = this.#pending.shift();
    if (message.name === "error" && message.values[1]) {
      throw this.#break(this.#gone(`it reported a fatal error on its sync channel: ${message.values[2]}`));
    }
    return message;
  }

  /** Closes the FIFOs and removes the directory if the helper never created them. */
  close() {
    this.#break(new HelperExitedError(`spawnhost helper ${this.#helperPath} has ended`));
    for (const fd of [this.#requestFd, this.#replyFd]) {
      if (fd >= 0) try { closeSync(fd); } catch { /* closed already */ }
    }
    this.#requestFd = this.#replyFd = -1;
    this.#removeDir();
  }

  #checkHello() {
    const { name, values } = this.receive();
    if (name !== "hello") throw this.#break(this.#gone(`its sync channel began with ${name}, not hello`));
    const [protocol, version] = values;
    if (protocol !== PROTOCOL_VERSION || version !== this.#packageVersion) {
      throw this.#break(new HelperVersionError(
        `spawnhost helper ${this.#helperPath} speaks protocol ${protocol} of version ${version}, ` +
        `but this package (spawnhost ${this.#packageVersion}) needs protocol ${PROTOCOL_VERSION} of version ${this.#packageVersion}`));
    }
    this.#helloChecked = true;
  }

  #writeAll(bytes) {
    if (this.#broken) throw this.#broken;
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(this.#requestFd, bytes, at, bytes.length - at);
    } catch (error) {
      // EPIPE: the helper, the only reader, is gone (Node ignores SIGPIPE).
      throw this.#break(this.#gone(`writing to its sync channel failed: ${error.message}`));
    }
  }

  #gone(reason, cause) {
    const error = new HelperExitedError(`spawnhost helper ${this.#helperPath} went away during a synchronous call (${reason})`);
    if (cause instanceof ProtocolError) error.cause = cause;
    return error;
  }

  #break(error) {
    this.#broken ??= error;
    return this.#broken;
  }

  #removeDir() {
    for (const name of ["request", "reply"]) {
      try { unlinkSync(join(this.#dir, name)); } catch { /* not created, or removed */ }
    }
    try { rmSync(this.#dir, { recursive: true, force: true }); } catch { /* best effort */ }
  }
}
