// A helper-mode child's stdio as Node streams, with flow control across the pipe:
// output is granted to the helper as credit only while the consumer reads, and stdin
// write callbacks wait for the helper's `written` acknowledgements.
import { Readable, Writable } from "node:stream";
import { MAX_DATA_CHUNK } from "../protocol/generated.js";
import { errnoError } from "../core/errors.js";
import { OUTPUT_CREDIT } from "../protocol/spawn-request.js";
import { queuedWrites, trackCork } from "./early-writes.js";

// Every credit grant and every acknowledgement is a message that wakes the other
// side, which costs a context switch on a busy machine: windows of 64 KiB capped
// output at ~13% of child_process's rate. These bound what can pile up per stream
// (OUTPUT_CREDIT lives in protocol/spawn-request.js: the spawn request carries the first grant).
/** Bytes of stdin that may be unacknowledged before write callbacks start to wait. */
export const STDIN_WINDOW = 1024 * 1024;

/**
 * A child's stdout or stderr. With `credit`, the helper may send only what was granted;
 * `_read()` (called only while the consumer wants data) tops the grant back up, so a
 * paused consumer grants nothing and the child ends up blocked on a full pipe.
 */
export class HelperOutput extends Readable {
  #grant;
  #credit;
  #outstanding;
  // Given as another child's stdin (launch/relayed-stdio.js): where the bytes go instead.
  #sink = null;
  #sinkFull = false;
  #ended = false;

  /**
   * @param {{ grant?: (bytes: number) => void, credit?: number }} options without
   *   `credit` the helper sends without limit (execute-to-completion calls).
   */
  constructor({ grant, credit } = {}) {
    // The default mark, as child_process's sockets have (16 KiB on Node 20, 64 KiB from 22).
    super();
    this.#grant = grant;
    this.#credit = credit;
    this.#outstanding = credit ?? 0;
  }

  _read() {
    if (this.#credit === undefined || this.#outstanding > this.#credit / 2) return;
    const more = this.#credit - this.#outstanding;
    this.#outstanding = this.#credit;
    this.#grant(more);
  }

  /** Backend: bytes from a `data` message. */
  _receive(bytes) {
    this.#outstanding -= bytes.length;
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (this.#sink === null) {
      if (!this.destroyed) this.push(chunk);
    } else if (this.#sink.write(chunk)) {
      this._read();
    } else if (!this.#sinkFull) {
      // Credit is granted again only once the sink has room: the child stays blocked
      // on its full pipe meanwhile, as it would writing to the reader's.
      this.#sinkFull = true;
      this.#sink.onRoom(() => {
        this.#sinkFull = false;
        this._read();
      });
    }
  }

  /** Backend: the `eof` message. */
  _eof() {
    this.#ended = true;
    if (this.#sink !== null) this.#endDiverted();
    else if (!this.destroyed) this.push(null);
  }

  /**
   * Used as another child's stdin: what the helper relays from now on goes to `sink`,
   * not to this stream's readers, and the end ends it. The stream itself then closes
   * (its child can close) without `end`, having read nothing more.
   * @param {{ write: (chunk: Buffer) => boolean, onRoom: (resume: () => void) => void, end: () => void }} sink
   */
  _divert(sink) {
    this.#sink = sink;
    if (this.#ended) this.#endDiverted();
    else this._read();
  }

  #endDiverted() {
    this.#sink.end();
    this.destroy();
  }
}

/**
 * A child's stdin. Writes go out at once in frames of at most MAX_DATA_CHUNK bytes; a
 * write's callback waits while more than STDIN_WINDOW bytes are unacknowledged, which
 * makes write() return false and `drain` fire when the child really reads.
 */
export class HelperInput extends Writable {
  // Node's child.stdin is a net.Socket made with readable: false, and code reads it
  // (test-child-process-stdin.js). An own field: a getter would be shadowed by it.
  readable = false;
  #send;
  #end;
  #inFlight = 0;
  #waiting = null;
  #closed = false;
  #running;
  // Other children writing into this stdin (launch/relayed-stdio.js), and what waits
  // for room: destroy() waits for them, as a pipe stays open while a writer holds it;
  // failed: the child reading it is gone (or its pipe broke), so are their bytes.
  #shares = 0;
  #endDeferred = false;
  #failed = false;
  #roomWaiters = [];

  /**
   * @param {{ send: (bytes: Uint8Array, onFlushed: () => void) => boolean, end: () => void, running?: () => boolean }} io
   *   send: false when the child is gone (the bytes went nowhere); end: close the
   *   child's stdin (after what was sent), once; running: whether the child has not
   *   exited yet (default: it has not)
   */
  constructor({ send, end, running = () => true }) {
    super();
    this.#send = send;
    this.#end = end;
    this.#running = running;
    trackCork(this);
  }

  _write(chunk, encoding, callback) {
    if (chunk.length === 0) {
      callback();
      return;
    }
    // The chunk goes to the helper uncopied, so its callback waits until Node has
    // handed the last piece to the kernel (the caller may reuse the buffer after it),
    // and then while more than STDIN_WINDOW bytes are unacknowledged.
    const flushed = () => {
      if (this.#inFlight <= STDIN_WINDOW) callback();
      else this.#waiting = callback;
    };
    try {
      this.#sendBytes(chunk, flushed);
    } catch (error) {
      callback(error);
      return;
    }
    this.#inFlight += chunk.length;
  }

  #sendBytes(chunk, flushed) {
    for (let offset = 0; offset < chunk.length; offset += MAX_DATA_CHUNK) {
      const last = offset + MAX_DATA_CHUNK >= chunk.length;
      this.#send(chunk.subarray(offset, offset + MAX_DATA_CHUNK), last ? flushed : () => {});
    }
  }

  _final(callback) {
    try {
      this.#closeInput();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  // As destroying Node's socket closes the pipe: the child reads EOF (a `cat` ends)
  // instead of waiting for input that will never come. The writes still buffered behind
  // one the helper has not taken yet go first: Node's socket had written them into the
  // pipe inside each write() (early-writes.js), as far as the pipe had room: the window
  // stands for that room here. Not when the pipe failed or its child is gone: Node's
  // had not written them either. Copies: their callbacks fail now.
  _destroy(error, callback) {
    const written = !this.#closed && !this.#failed && this.#running();
    this.#waiting = null;
    try {
      for (const bytes of written ? queuedWrites(this) : []) {
        const room = STDIN_WINDOW - this.#inFlight;
        if (room <= 0) break;
        this.#sendBytes(bytes.subarray(0, room), () => {});
        this.#inFlight += Math.min(room, bytes.length);
      }
      this.#closeInput(true);
    } catch { /* the helper is gone: so is the pipe */ }
    callback(error);
  }

  // end() shuts the pipe for every writer, as shutdown() of Node's shared socket does;
  // destroy() only lets go of this end: the pipe closes once the other writers have.
  #closeInput(shared = false) {
    if (this.#closed) return;
    if (shared && this.#shares > 0) {
      this.#endDeferred = true;
      return;
    }
    this.#closed = true;
    this.#end();
    this.#wakeWriters();
  }

  /**
   * One more writer: another child whose stdout or stderr this stdin was given as. Its
   * bytes go out after what was written so far; `release` once it has ended.
   * @returns {{ write: (chunk: Buffer) => boolean, onRoom: (resume: () => void) => void, release: () => void, isClosed: () => boolean }}
   */
  _share() {
    this.#shares++;
    let held = true;
    return {
      // The pipe is shut, or its reader gone: the writer's next write is to fail (EPIPE).
      isClosed: () => this.#closed || this.#failed,
      // false: wait for `onRoom` before writing more. Bytes after the pipe closed are dropped.
      write: (chunk) => {
        if (this.#closed || this.#failed) return true;
        try {
          for (let offset = 0; offset < chunk.length; offset += MAX_DATA_CHUNK) {
            if (this.#send(chunk.subarray(offset, offset + MAX_DATA_CHUNK), () => {}) === false) this.#failed = true;
          }
        } catch {
          this.#failed = true;
        }
        if (this.#failed) return true;
        this.#inFlight += chunk.length;
        return this.#inFlight <= STDIN_WINDOW;
      },
      onRoom: (resume) => {
        if (this.#closed || this.#failed || this.#inFlight <= STDIN_WINDOW) resume();
        else this.#roomWaiters.push(resume);
      },
      release: () => {
        if (!held) return;
        held = false;
        this.#shares--;
        if (this.#shares > 0 || !this.#endDeferred) return;
        this.#endDeferred = false;
        try { this.#closeInput(); } catch { /* the helper is gone: so is the pipe */ }
      },
    };
  }

  #wakeWriters() {
    for (const resume of this.#roomWaiters.splice(0)) resume();
  }

  /** Backend: a `written` message acknowledged `bytes`. */
  _acknowledge(bytes) {
    this.#inFlight -= bytes;
    if (this.#inFlight <= STDIN_WINDOW) this.#wakeWriters();
    if (this.#waiting && this.#inFlight <= STDIN_WINDOW) {
      const callback = this.#waiting;
      this.#waiting = null;
      callback();
    }
  }

  /** Backend: a `stdin_error` message; surfaces like Node's `write EPIPE`. */
  _fail(code) {
    this.#failed = true;
    if (!this.destroyed) this.destroy(errnoError(code, "write"));
    this.#wakeWriters();
  }
}
