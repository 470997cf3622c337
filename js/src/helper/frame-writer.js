// Writes frames to the helper: every frame queued in one tick (a burst of launches, the
// launches answering the replies of one read, a big stdin write) leaves in one writev
// at the end of that tick (process.nextTick), or earlier by flushNow() and end(). Not
// once per loop turn (setImmediate): that saved a fifth of the writes with 8 launches
// in flight but no CPU that could be measured, and it held a request back behind
// callbacks already queued for the check phase, which may block (bench/start-call.mjs).
// The write is a plain writev on the pipe's descriptor (fs.writevSync: the
// descriptor is non-blocking, so it never waits), with none of the stream's per-write
// machinery, a sixth of Node's busy time per launch before. What the pipe cannot take
// at once (it is full, the helper is gone) is handed to the stream, which then keeps
// the order: while anything is queued there every later frame goes there too, and a
// failed write reaches the stream's `error` event as before. A stream without a
// descriptor (a Windows pipe) is written by sync/windows.js's writer instead (libuv's
// own write, at once), and a tick's batch larger than DIRECT_MAX_BYTES (a big stdin
// write, a spawn with megabytes of arguments) goes through the stream: fs.writevSync retries a partial write at once, and would spin for as
// long as the helper keeps reading, where the stream waits for the socket to drain.
import { writevSync } from "node:fs";
import { directPipeWriter } from "../sync/windows.js";

const DIRECT_MAX_BYTES = 64 * 1024;

export class FrameWriter {
  /** @type {import("node:stream").Writable} the helper's stdin, or its fd 6 */
  #input;
  /** @type {(Buffer|Uint8Array)[]} parts queued this tick */
  #parts = [];
  /** @type {(() => void)[]} the onFlushed callbacks of those parts, by index; sparse */
  #flushed = [];
  #bytes = 0;
  /** a flush is queued for the end of this tick */
  #pending = false;
  /** Windows Node: frames go to libuv's pipe write at once (sync/windows.js) */
  #direct;

  /** @param {import("node:stream").Writable} input */
  constructor(input) {
    this.#input = input;
    this.#direct = directPipeWriter(input);
  }

  /** Queues the parts of one or more frames; `onFlushed` after the last has gone to the kernel. */
  write(parts, onFlushed) {
    if (this.#direct) return this.#direct.write(parts, onFlushed);
    for (let i = 0; i < parts.length; i++) {
      this.#parts.push(parts[i]);
      this.#bytes += parts[i].byteLength;
    }
    if (onFlushed) this.#flushed[this.#parts.length - 1] = onFlushed;
    if (!this.#pending) {
      this.#pending = true;
      process.nextTick(() => this.#flush());
    }
  }

  /**
   * Hands every frame queued so far to the kernel now instead of at the end of this
   * tick: true when nothing is left queued in Node, false when the pipe is full.
   */
  flushNow() {
    if (this.#direct) return this.#direct.flushNow();
    this.#flush();
    return this.#input.writableLength === 0;
  }

  /** Writes what is queued, then ends the stream (the helper's cue to end). */
  end() {
    if (this.#direct) return this.#direct.end();
    this.#flush();
    this.#input.end();
  }

  #flush() {
    this.#pending = false;
    const parts = this.#parts;
    if (parts.length === 0) return;
    const flushed = this.#flushed;
    const bytes = this.#bytes;
    this.#parts = [];
    this.#flushed = [];
    this.#bytes = 0;
    const input = this.#input;
    let at = 0;
    // Straight to the pipe only while the stream holds nothing: it would go first. The
    // descriptor is asked for each time: once the stream closed it, its number may
    // already name another file.
    const fd = input._handle?.fd;
    if (Number.isInteger(fd) && fd >= 0 && input.writableLength === 0 && bytes <= DIRECT_MAX_BYTES && !input.writableEnded && !input.destroyed) {
      at = writeDirect(fd, parts, flushed);
    }
    if (at === parts.length) return;
    input.cork();
    try {
      for (let i = at; i < parts.length; i++) input.write(parts[i], flushed[i]);
    } finally {
      input.uncork();
    }
  }
}

// Writes parts from the first on; returns the index of the first not written whole,
// the unwritten tail of that one put in its place.
function writeDirect(fd, parts, flushed) {
  let written;
  try {
    written = writevSync(fd, parts);
  } catch {
    return 0; // full (EAGAIN), or broken: the stream writes it, and reports the error
  }
  let at = 0;
  while (at < parts.length && written >= parts[at].byteLength) {
    written -= parts[at].byteLength;
    if (flushed[at]) process.nextTick(flushed[at]);
    at++;
  }
  if (written > 0) parts[at] = parts[at].subarray(written);
  return at;
}
