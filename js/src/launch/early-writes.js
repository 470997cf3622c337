// What a child's stdin had been asked to write when it is destroyed before those bytes
// went out: a handed-over socket still waiting for its descriptor (launch/handed-socket.js)
// holds its first write aside and buffers the rest, and so does a relayed stdin whose
// first write the helper has not taken yet (launch/streams.js). Node's own stdin writes
// each write()'s bytes to the pipe inside the call (as far as the kernel takes them), so
// its destroy() drops only what cork() still held back and what the kernel did not take.
// Everything queued here was written by Node at once, but what came under cork().

// Where a stream's buffered writes began to be held back by cork(), while it is corked.
const corkedFrom = new WeakMap();

/** Notes, from now on, which of `stream`'s buffered writes came under cork(). */
export function trackCork(stream) {
  const { cork, uncork } = stream;
  stream.cork = function () {
    if (this.writableCorked === 0) corkedFrom.set(this, this.writableBuffer.length);
    return cork.call(this);
  };
  stream.uncork = function () {
    const result = uncork.call(this);
    if (this.writableCorked === 0) corkedFrom.delete(this);
    return result;
  };
}

/**
 * The bytes of the writes queued in `stream` that Node would have written by now, in
 * order: `first` (the write handed to the stream's _write, still under way), then the
 * buffered ones, up to the first made under cork(). Read before destroy() clears them.
 * @param {import("node:stream").Writable} stream
 * @param {{ chunk: Buffer|string, encoding: string }[]} [first]
 * @returns {Buffer[]}
 */
export function queuedWrites(stream, first = []) {
  const buffered = stream.writableBuffer ?? [];
  const taken = buffered.slice(0, corkedFrom.get(stream) ?? buffered.length);
  return [...first, ...taken].map(({ chunk, encoding }) => (typeof chunk === "string" ? Buffer.from(chunk, encoding) : Buffer.from(chunk)))
    .filter((bytes) => bytes.length > 0);
}
