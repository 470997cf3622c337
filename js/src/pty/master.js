// The pty master Node reads and writes itself (docs/pty.md), where the helper takes
// descriptors from Node (Linux and macOS, from the main thread, not SPAWNHOST_STREAMS=relay):
// Node opens /dev/ptmx (one open, not a fork: nothing grows with Node's memory) and
// gives it to the helper with the spawn (stdio kind given), which unlocks it, opens
// the terminal's slave side for the child and keeps a copy for resize. The helper cannot
// hand a master to Node instead: Node's IPC code aborts on a received descriptor that is
// a tty. Elsewhere null: the helper opens the master and relays it.
import { constants, openSync, closeSync, readSync } from "node:fs";
import { Socket } from "node:net";
import { takesDescriptors } from "../launch/given-stdio.js";

let pipeClass;

// Node's Pipe handle class, which wraps any stream descriptor (uv_pipe_open) and can
// be sent on an IPC channel. Not exported by Node; null where it cannot be had.
function pipeHandleClass() {
  if (pipeClass !== undefined) return pipeClass;
  try {
    const { Pipe, constants: pipeConstants } = process.binding("pipe_wrap");
    pipeClass = typeof Pipe === "function" ? { Pipe, SOCKET: pipeConstants.SOCKET } : null;
  } catch {
    pipeClass = null;
  }
  return pipeClass;
}

/**
 * A new pty master as a Pipe handle, to give as the child's stdio[0], or null where the
 * helper relays (it then opens the master itself).
 * @returns {object|null}
 */
export function openMaster() {
  return (process.platform === "linux" || process.platform === "darwin") && takesDescriptors() ? openTerminalHandle("/dev/ptmx") : null;
}

/**
 * A terminal device (`path`: the master multiplexer, or a slave such as /dev/pts/3)
 * opened as a Pipe handle, never as this process's controlling terminal; null where
 * Node's Pipe class cannot be had or cannot take it.
 * @returns {object|null}
 */
export function openTerminalHandle(path) {
  const pipe = pipeHandleClass();
  if (!pipe) return null;
  const fd = openSync(path, constants.O_RDWR | constants.O_NOCTTY);
  const handle = new pipe.Pipe(pipe.SOCKET);
  const status = handle.open(fd);
  if (status !== 0) {
    closeSync(fd);
    return null;
  }
  return handle;
}

/**
 * The master's socket, once the child runs on it: the bytes the terminal shows, and the
 * bytes typed. Half-open: its end is not the terminal's (drainMaster).
 */
export function masterSocket(handle) {
  return new Socket({ handle, readable: true, writable: true, allowHalfOpen: true });
}

/**
 * What the terminal still holds when libuv reported the master's end, read now. libuv
 * takes a hang-up after a short read as the end of a stream (true of pipes and
 * sockets), but a pty master returns one line-discipline buffer per read: when the
 * last holder of the slave side closes it, everything behind the first short read
 * would be lost (node-pty loses it: bench/RESULTS.md). The kernel keeps it until read,
 * then answers EIO; EAGAIN: something still holds the terminal, the rest comes later.
 * @returns {Buffer[]}
 */
export function drainMaster(socket) {
  const fd = socket._handle?.fd;
  const chunks = [];
  if (!(fd >= 0)) return chunks;
  for (;;) {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    let n;
    try {
      n = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      return chunks; // EIO (all of it read) or EAGAIN
    }
    if (n === 0) return chunks;
    chunks.push(buffer.subarray(0, n));
  }
}
