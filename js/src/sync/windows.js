// What differs on Windows for blocking calls (docs/sync.md, "Windows"): the one JS module
// of Windows differences there. Node's end of a libuv stdio pipe has no descriptor on
// Windows (`handle.fd` is -1), so fs.readSync cannot use it: the Windows helper makes a
// named pipe (`--sync-pipe`), which Node opens with fs.openSync at its first blocking
// call (helper/windows/sync_pipe.cpp has the other half of the handshake below). And a
// write to the main pipe reports its end only on the loop's next turn (directPipeWriter).
import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, openSync, writeSync } from "node:fs";

/**
 * The sync pipe's name for a helper started here, or null: only Windows Node can open the
 * Windows helper's pipe (Linux Node driving it under wine cannot; its blocking calls fall
 * back). Random, so that nobody can make it first (the helper would then refuse it).
 * @param {string} platform the helper's platform
 */
export function syncPipeName(platform) {
  if (platform !== "win32" || process.platform !== "win32") return null;
  return `\\\\.\\pipe\\spawnhost-sync-${process.pid}-${randomBytes(16).toString("hex")}`;
}

/**
 * The errors of a non-blocking call that would have waited: EAGAIN on a socket, read or
 * written; on a pipe end in PIPE_NOWAIT mode, an empty pipe fails a read with
 * ERROR_NO_DATA, which libuv names EPIPE (the helper's end closed reads as end of file,
 * 0), and a full one takes 0 bytes of a write (a write's EPIPE is the helper's end gone).
 */
export const SOCKET_WOULD_WAIT = new Set(["EAGAIN", "EWOULDBLOCK"]);
export const PIPE_READ_WOULD_WAIT = new Set(["EAGAIN", "EWOULDBLOCK", "EPIPE"]);
/**
 * The most one write to the pipe offers: the helper's inbound buffer (sync_pipe.cpp).
 * A non-blocking pipe write takes what fits (wine) or, should it take all or nothing,
 * takes this much once the helper has read what was there.
 */
export const PIPE_WRITE_MAX = 64 * 1024;

/**
 * Opens the helper's sync pipe and has the helper make Node's end non-blocking, waiting
 * until `deadline` (a performance.now() time) at most; every step here returns at once.
 * 1. Open the name: ENOENT until the helper made it, EBUSY while it serves someone.
 * 2. Write this end's handle (libuv reports a pipe's HANDLE as its inode): 8 bytes into
 *    an empty pipe, which never waits.
 * 3. Open the name again: that succeeds once the helper, having set PIPE_NOWAIT on our
 *    end, makes a second instance. Until then a read would wait for the helper.
 *    The caller holds this second descriptor until the helper's hello has come: the
 *    helper checks who opened the instance, which it can only while it is open (closed
 *    before the helper looked, it reads as someone who came and went, not Node, and the
 *    helper would wait for Node for ever: CI's "said no hello" under wine).
 * @param {string} name
 * @param {number} deadline
 * @param {(waitedMs: number) => void} pause sleeps a share of the time waited
 * @returns {{ fd: number, ready: number }|null} the channel's descriptor and the second
 *   instance's, or null when the helper did not get there in time
 */
export function openSyncPipe(name, deadline, pause) {
  const fd = openWhenThere(name, deadline, pause);
  if (fd === null) return null;
  try {
    const handle = fstatSync(fd, { bigint: true }).ino;
    if (handle === 0n) throw new Error(`this Node (${process.version}) does not report a pipe's handle in fs.fstatSync`);
    const value = Buffer.alloc(8);
    value.writeBigUInt64LE(handle);
    writeSync(fd, value);
    const ready = openWhenThere(name, deadline, pause);
    if (ready === null) {
      closeSync(fd);
      return null;
    }
    return { fd, ready };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function openWhenThere(name, deadline, pause) {
  const from = performance.now();
  for (;;) {
    try {
      return openSync(name, "r+");
    } catch (error) {
      if (error.code !== "ENOENT" && error.code !== "EBUSY") throw error;
    }
    const now = performance.now();
    if (now >= deadline) return null;
    pause(now - from);
  }
}

/**
 * Windows Node: how frames reach the helper's stdin, or null elsewhere. libuv writes a
 * Windows pipe with an overlapped WriteFile, which normally completes at once but is
 * reported on the loop's next turn; a Writable sends one write at a time, so a frame
 * written after another in the same turn would wait for that turn in Node's memory. An
 * early `pid` read blocks the loop, so such a spawn could not reach the helper. Here the
 * frames go straight to libuv (net.Socket#_writeGeneric, what the Writable's _writev
 * calls), which issues each WriteFile at once and in order (an overlapped pipe: Node's
 * end of a libuv stdio pipe).
 * @param {import("node:stream").Writable} input
 * @returns {{ write(parts: Uint8Array[], onFlushed?: () => void): void, flushNow(): boolean, end(): void }|null}
 */
export function directPipeWriter(input) {
  if (process.platform !== "win32" || typeof input._writeGeneric !== "function" || !input._handle) return null;
  return new DirectPipeWriter(input);
}

class DirectPipeWriter {
  #input;
  /** @type {Uint8Array[]} this tick's frames, written together at its end */
  #parts = [];
  /** @type {(() => void)[]} */
  #callbacks = [];
  #scheduled = false;

  constructor(input) {
    this.#input = input;
  }

  write(parts, onFlushed) {
    if (this.#input.writableEnded) {
      // What a Writable does then: the stream is destroyed with the error.
      const input = this.#input;
      process.nextTick(() => input.destroy(Object.assign(new Error("write after end"), { code: "ERR_STREAM_WRITE_AFTER_END" })));
      return;
    }
    for (const part of parts) this.#parts.push(part);
    if (onFlushed) this.#callbacks.push(onFlushed);
    if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(() => this.#flush());
    }
  }

  /**
   * Writes what is queued now: true when every frame is with the kernel. A WriteFile
   * still pending there (libuv's writeQueueSize) completes as the helper reads its
   * stdin, which it always does, without this loop's help.
   */
  flushNow() {
    this.#flush();
    return Boolean(this.#input._handle) && !this.#input.destroyed;
  }

  end() {
    this.#flush();
    this.#input.end();
  }

  #flush() {
    this.#scheduled = false;
    if (this.#parts.length === 0) return;
    const chunks = this.#parts.map((chunk) => ({ chunk, encoding: "buffer" }));
    chunks.allBuffers = true;
    const callbacks = this.#callbacks;
    this.#parts = [];
    this.#callbacks = [];
    const input = this.#input;
    input._writeGeneric(true, chunks, "", (error) => {
      // As a Writable reports a failed write: an "error" event on the stream.
      if (error) input.destroy(error);
      else for (const callback of callbacks) callback();
    });
  }
}
