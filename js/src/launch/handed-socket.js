// A child's stdio as the net.Socket node:child_process gives (its createSocket: a
// Socket on the Pipe handle, readable for stdout/stderr, not for stdin), made at once
// and given its handle when the helper has handed it over. Until then it stands as a
// socket still connecting does: writes, end() and reads wait for its 'connect', which
// adopting the handle emits. Node's own code keeps a Socket's handle in `_handle`,
// owned through the handle's owner symbol, read through its `onread`: the pending
// socket's placeholder (an unopened Pipe) supplies both, so nothing internal is
// imported.
import net from "node:net";
import { USED_AS_STDIO } from "../core/stdio-streams.js";
import { queuedWrites, trackCork } from "./early-writes.js";

// PipeConstants.SOCKET: a Pipe for a stream, not a server or an IPC channel.
const PIPE_SOCKET = 0;

/** Sockets made here that have no handle yet. */
const pending = new WeakSet();

/** Whether `socket` is a child's stdio still waiting for the helper's hand-over. */
export function awaitingHandle(socket) {
  return pending.has(socket);
}

/**
 * @param {Function} Pipe Node's Pipe handle class
 * @param {boolean} readable false for stdin, as child_process makes it
 * @returns {net.Socket}
 */
export function pendingSocket(Pipe, readable) {
  // manualStart: no read on the placeholder, which has no descriptor yet.
  const socket = new net.Socket({ handle: new Pipe(PIPE_SOCKET), readable, manualStart: true });
  socket.connecting = true;
  pending.add(socket);
  if (!readable) keepWritesPastDestroy(socket);
  return socket;
}

/** Bytes a stdin destroyed while pending still owes its child (early-writes.js). */
const owed = new WeakMap();

// A stdin destroyed before its descriptor came: what it was asked to write (its first
// write held by net.Socket's connecting state, the rest buffered) is kept for the
// descriptor, as Node's own stdin had written it into the pipe before destroy().
// The wrapper stays once the socket is adopted (it then only calls through): code that
// wrapped it in turn, as execa spies on `stdin._destroy`, must keep its wrapper.
function keepWritesPastDestroy(socket) {
  trackCork(socket);
  socket._destroy = function (error, callback) {
    if (pending.has(this)) {
      // net.Socket keeps the write that waits for 'connect' as `_pendingData` (the
      // `{ chunk, encoding }`s of a writev, or one chunk in `_pendingEncoding`).
      const data = this._pendingData;
      const first = data == null ? [] : Array.isArray(data) ? data : [{ chunk: data, encoding: this._pendingEncoding }];
      owed.set(this, queuedWrites(this, first));
    }
    return net.Socket.prototype._destroy.call(this, error, callback);
  };
}

// Node's write into a pipe goes to the kernel inside the call, and its destroy() then
// closes the pipe: what the kernel took reaches the child, the rest is dropped. A
// socket of Node's on the descriptor does the same here (libuv tries the write at once).
function writeThenClose(handle, bytes) {
  const socket = new net.Socket({ handle, readable: false });
  socket.on("error", () => {});
  socket.write(Buffer.concat(bytes));
  socket.destroy();
}

/**
 * Gives a pending socket the handle the helper handed over; what waited for it goes on.
 * `scope`: the AsyncResource whose context the socket's reads run in.
 * A socket destroyed meanwhile closes the handle instead, as Node closes its end of a
 * destroyed stream (the child gets EPIPE, or EOF for its stdin), a stdin once it wrote
 * what it owed.
 */
export function adopt(socket, handle, readable, scope) {
  pending.delete(socket);
  const placeholder = socket._handle;
  if (socket.destroyed || !placeholder) {
    const bytes = owed.get(socket);
    if (bytes?.length > 0) writeThenClose(handle, bytes);
    else handle.close();
    return;
  }
  const owner = Object.getOwnPropertySymbols(placeholder).find((symbol) => symbol.description === "owner_symbol");
  handle[owner] = socket;
  // Node made the handle in its IPC channel's read: its reads run in the launching
  // call's async context instead, as a child_process socket's run in its spawn's.
  const onread = placeholder.onread;
  handle.onread = scope ? function (...args) { return scope.runInAsyncScope(onread, this, ...args); } : onread;
  socket._handle = handle;
  placeholder.close();
  socket.connecting = false;
  socket.emit("connect");
  // child_process's sockets read from the start (up to the high-water mark), as
  // net.Socket's constructor does for a readable socket with a handle; one given to
  // another child as its stdio meanwhile is read by that child alone.
  if (readable && !socket[USED_AS_STDIO]) socket.read(0);
}

/**
 * A pending socket that will never get its handle (the process did not start): its
 * reading side ends, as a failed spawn's outputs do, and it closes after that.
 */
export function endPending(socket, readable) {
  pending.delete(socket);
  if (!socket.connecting) return;
  socket.connecting = false;
  socket._handle?.close();
  socket._handle = null;
  if (!readable) {
    socket.destroy();
    return;
  }
  socket.once("end", () => socket.destroy());
  if (!socket.destroyed && !socket.readableEnded) socket.push(null);
}
