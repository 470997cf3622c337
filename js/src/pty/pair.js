// node-pty's open(): a terminal with no process on it, both its ends for the caller, who
// runs the slave side itself: `master` (what a terminal window reads and types into)
// and `slave` (what a program would have as its stdio). node-pty calls openpty(3) in
// Node's process. Node's JS cannot unlock a master (that is an ioctl), so the helper
// does: it starts `true` on a new master of Node's (master.js), which unlocks it and
// sets its size, and `true` is gone at once. The slave is then opened here by its name,
// from the master's tty-index in /proc (Linux). Where Node cannot hold the master
// (SPAWNHOST_STREAMS=relay, a worker thread, macOS without /proc), open() throws.
import { EventEmitter } from "node:events";
import { constants, openSync, readFileSync } from "node:fs";
import { ReadStream } from "node:tty";
import { DEFAULT_COLS, DEFAULT_ROWS, checkResize, windowDimension } from "./options.js";
import { masterSocket, openMaster, openTerminalHandle } from "./master.js";
import { startOnTerminal } from "./launch.js";

const NOT_HERE = "spawnhost/pty: open() needs Node to hold the terminal's master: Linux, from the main thread, without SPAWNHOST_STREAMS=relay (docs/pty.md)";

/**
 * Opens a terminal pair with no process: node-pty's open({ cols, rows, encoding }).
 * @param {{ cols?: number, rows?: number, encoding?: string|null }} [options]
 * @returns {TerminalPair}
 */
export function open(options) {
  if (process.platform === "win32") throw new Error("open() not supported on windows, use Fork() instead.");
  const o = options ?? {};
  const size = [windowDimension(o.cols || DEFAULT_COLS), windowDimension(o.rows || DEFAULT_ROWS)];
  const encoding = o.encoding === null ? null : o.encoding || "utf8";
  if (process.platform !== "linux") throw new Error(NOT_HERE);
  const master = openMaster();
  if (!master) throw new Error(NOT_HERE);
  let slave;
  try {
    const { child } = startOnTerminal("true", [], { env: process.env }, size, master);
    child.on("error", () => {}); // its failure is open()'s, thrown below
    setImmediate(() => child.release());
    if (child.waitForPid() === undefined) throw new Error("spawnhost/pty: open() could not set up the terminal: the helper could not start `true` on it");
    const index = /^tty-index:\s*(\d+)$/m.exec(readFileSync(`/proc/self/fdinfo/${master.fd}`, "latin1"))?.[1];
    if (index === undefined) throw new Error(NOT_HERE);
    slave = `/dev/pts/${index}`;
    return new TerminalPair(master, slave, openSync(slave, constants.O_RDWR | constants.O_NOCTTY), size, encoding);
  } catch (error) {
    master.close();
    throw error;
  }
}

/** An opened pair (node-pty's UnixTerminal from open()): no process, so no pid (-1) and no exit. */
export class TerminalPair extends EventEmitter {
  /** node-pty's: no process runs on the terminal. */
  pid = -1;
  handleFlowControl = false;
  /** @type {import("node:net").Socket} */ master;
  /** @type {ReadStream} */ slave;
  /** The slave's path, e.g. /dev/pts/3 (node-pty's ptsName). */ ptsName;
  cols;
  rows;

  constructor(masterHandle, ptsName, slaveFd, [cols, rows], encoding) {
    super();
    this.ptsName = ptsName;
    this.cols = cols;
    this.rows = rows;
    this.master = masterSocket(masterHandle);
    this.slave = new ReadStream(slaveFd);
    // As node-pty's: both ends decode with `encoding` and flow at once.
    for (const end of [this.master, this.slave]) {
      if (encoding !== null) end.setEncoding(encoding);
      end.resume();
    }
    this.master.on("data", (data) => this.emit("data", data));
    this.master.on("error", () => {}); // EIO: the slave side closed
  }

  /** The master's descriptor (node-pty's fd). */
  get fd() {
    return this.master._handle?.fd ?? -1;
  }

  /** node-pty's file for a pair: this Node's argv[0]. */
  get process() {
    return process.argv[0] || "node";
  }

  onData(listener) {
    this.on("data", listener);
    return { dispose: () => this.off("data", listener) };
  }

  /** No process: no exit ever comes. */
  onExit() {
    return { dispose() {} };
  }

  write(data) {
    this.master.write(data);
  }

  /**
   * Sets the window size with `stty` run on the slave side (Node cannot make the ioctl):
   * the size is set a moment later, and the slave's foreground group gets SIGWINCH.
   */
  resize(cols, rows) {
    checkResize(cols, rows);
    this.cols = windowDimension(cols);
    this.rows = windowDimension(rows);
    const slave = openTerminalHandle(this.ptsName);
    if (!slave) return;
    // Not on a terminal of its own (size null): `stty` with the slave as its stdin.
    const { child, launched } = startOnTerminal("stty", ["cols", String(this.cols), "rows", String(this.rows)], { env: process.env }, null, slave);
    child.on("close", () => slave.close());
    launched.catch(() => slave.close());
    setImmediate(() => child.release());
  }

  clear() {}

  pause() {
    this.master.pause();
  }

  resume() {
    this.master.resume();
  }

  /** No process to signal (node-pty's would signal pid -1: every process it may). */
  kill() {}

  destroy() {
    this.master.destroy();
    this.slave.destroy();
  }
}
