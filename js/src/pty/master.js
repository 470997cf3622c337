// The pty master Node reads and writes itself (docs/pty.md), where the helper takes
// descriptors from Node (Linux, from the main thread, not SPAWNHOST_STREAMS=relay):
// Node opens /dev/ptmx (one open, not a fork: nothing grows with Node's memory) and
// gives it to the helper with the spawn (stdio kind given), which unlocks it, opens
// the terminal's slave side for the child and keeps a copy for resize. The helper cannot
// hand a master to Node instead: Node's IPC code aborts on a received descriptor that is
// a tty. Elsewhere null: the helper opens the master and relays it.
import { constants, openSync, closeSync } from "node:fs";
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
  const pipe = process.platform === "linux" && takesDescriptors() ? pipeHandleClass() : null;
  if (!pipe) return null;
  const fd = openSync("/dev/ptmx", constants.O_RDWR | constants.O_NOCTTY);
  const handle = new pipe.Pipe(pipe.SOCKET);
  const status = handle.open(fd);
  if (status !== 0) {
    closeSync(fd);
    return null;
  }
  return handle;
}

/** The master's socket, once the child runs on it: the bytes the terminal shows, and the bytes typed. */
export function masterSocket(handle) {
  return new Socket({ handle, readable: true, writable: true });
}
