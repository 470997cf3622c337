// Descriptors the helper hands over on Node's own IPC channel to it (the "ipc" stdio
// entry of helper/process.js): a launch's piped stdio, one descriptor per read, the
// last read ending with the line {"cmd":"NODE_SPAWNHOST_STDIO",...,"fds":[...]} that
// names them in order (helper/launch/node_ipc.hpp). Not Node's handle protocol, which would
// cost an ACK write per descriptor here and the helper a wait for each: the
// descriptors are taken from the channel's reads (takeDescriptors below), and Node's
// channel code only parses the line and emits it as an `internalMessage`. They are
// kept by launch until the launch claims them; the launch joins them with its
// `spawned` frame (launch/handover.js).
import { channelHandleOf, giveNow } from "./give-now.js";

/** The `cmd` of the line the helper sends with each descriptor (helper/launch/node_ipc.hpp). */
export const STDIO_HANDLE_CMD = "NODE_SPAWNHOST_STDIO";
/**
 * The `cmd` of the line that follows a launch's descriptors when its stderr became
 * readable before its stdout (helper/posix/first_output.hpp): a Node thread busy since
 * spawn() reads it in the same turn as the descriptors, and starts reading stderr first.
 */
export const STDERR_FIRST_CMD = "NODE_SPAWNHOST_FIRST";

/** The descriptors one helper handed over, by launch. */
export class HandleInbox {
  /** Node's Pipe handle class (the helper's own stdio are Pipes): for pending sockets. */
  Pipe;
  /** The helper's listener for forked children's channels (launch/node-channel.js), or null. */
  channelListener = null;
  /** @type {Map<string, Map<number, object>>} arrived, not claimed yet */
  #arrived = new Map();
  /** @type {Map<string, { id: number, pid: number, fds: number[], ready: (handles: Map<number, object>) => void, lost: () => void }>} */
  #claims = new Map();
  /** @type {Set<string>} launches one of whose descriptors did not arrive */
  #lost = new Set();
  /** Descriptors read from the channel since Node last emitted a line, in order. */
  #received = [];
  /** @type {Map<string, () => void>} launches reading both outputs, until stderr is said first or they end */
  #orderings = new Map();
  /** @type {Set<string>} stderr said first before the launch took its handles */
  #stderrFirst = new Set();
  /** @type {Set<string>} given up: what still comes for them is closed */
  #discarded = new Set();
  #closed = false;
  #helper;

  /**
   * Whether the helper's children's stdio can come here: false where the channel's
   * read could not be reached (a Node line other than the 20 to 26 this was checked
   * on), which leaves the children's stdio to the relay.
   */
  receives;

  /** @param {import("node:child_process").ChildProcess} helper started with an "ipc" entry */
  constructor(helper) {
    this.#helper = helper;
    this.Pipe = helper.stdout._handle.constructor;
    this.receives = takeDescriptors(helper, (handle) => this.#received.push(handle));
    helper.on("internalMessage", (message) => {
      if (message?.cmd === STDERR_FIRST_CMD) return this.#stderrSaidFirst(message);
      if (message?.cmd !== STDIO_HANDLE_CMD || !Array.isArray(message.fds)) return;
      // Node emits the line right after the read that completed it, before the next
      // read: what was taken since the last line is this line's, all of it.
      this.#arrive(message, this.#received.splice(0));
    });
    // The helper is gone: nothing more comes, and nobody claims what did.
    helper.once("close", () => this.close());
  }

  /**
   * Calls `ready` with the handles of `fds` for the launch `id` whose process is `pid`,
   * now if they are all here, or once they are. The launch's end (or the helper's) is
   * `discard`. `stderrFirst` (for a launch that reads both outputs) is called if the
   * helper says the child's stderr became readable before its stdout, until `settled`.
   */
  claim(id, pid, fds, ready, lost, stderrFirst) {
    const key = `${id}:${pid}`;
    const claim = { id, pid, fds, ready, lost, stderrFirst };
    this.#claims.set(key, claim);
    this.#tryComplete(key);
  }

  /** Spawn options a launch adds for its hand-over: none here (stream-pipes.js adds some). */
  launchOptions() {
    return {};
  }

  /** A launch ended: nothing is kept by launch here beyond claim and discard. */
  released() {}

  /**
   * Sends a descriptor of Node's to the helper (launch/given-stdio.js): `handle` (a Pipe
   * or TCP) stays open here, as a stream given to a child stays its parent's too.
   * Resolves once Node has written it to the channel.
   */
  give(message, handle) {
    return new Promise((resolve, reject) => {
      this.#helper.send(message, handle, { keepOpen: true }, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Sends a descriptor to the helper now, outside Node's handle protocol (give-now.js),
   * for a thread that blocks on the launch next.
   * @returns {"written"|"queued"|null} as giveNow
   */
  giveNow(message, handle) {
    return giveNow(this.#helper, message, handle);
  }

  /** The launch that took its handles is over: nothing more is said to it. */
  settled(id, pid) {
    this.#orderings.delete(`${id}:${pid}`);
  }

  /** The launch is over before it took its handles: close them, now and when they come. */
  discard(id, pid) {
    const key = `${id}:${pid}`;
    this.#claims.delete(key);
    this.#stderrFirst.delete(key);
    this.#lost.delete(key);
    this.#discarded.add(key);
    for (const handle of this.#arrived.get(key)?.values() ?? []) handle.close();
    this.#arrived.delete(key);
  }

  /** The helper is gone: what arrived and was not claimed is closed. */
  close() {
    this.#closed = true;
    for (const handle of this.#received.splice(0)) handle.close();
    for (const handles of this.#arrived.values()) for (const handle of handles.values()) handle.close();
    this.#arrived.clear();
    this.#claims.clear();
    this.#orderings.clear();
    this.#stderrFirst.clear();
  }

  // The line comes after the launch's descriptors: it took them already, or will.
  #stderrSaidFirst({ id, pid }) {
    const key = `${id}:${pid}`;
    const stderrFirst = this.#orderings.get(key);
    if (stderrFirst) {
      this.#orderings.delete(key);
      stderrFirst();
    } else if (this.#arrived.has(key)) {
      this.#stderrFirst.add(key);
    }
  }

  // `handles`: what came with the line's reads, in the order of its `fds`.
  #arrive({ id, pid, fds }, handles) {
    const key = `${id}:${pid}`;
    if (this.#closed || this.#discarded.has(key)) {
      for (const handle of handles) handle.close();
      return;
    }
    // Not the descriptors the line names: Node's read could not take one (the kernel
    // drops a descriptor the receiver has no room for, EMFILE). None is guessed at.
    if (handles.length !== fds.length) {
      for (const handle of handles) handle.close();
      this.#lost.add(key);
      return this.#tryComplete(key);
    }
    this.#arrived.set(key, new Map(fds.map((fd, k) => [fd, handles[k]])));
    this.#tryComplete(key);
  }

  #tryComplete(key) {
    const claim = this.#claims.get(key);
    if (claim && this.#lost.delete(key)) {
      this.discard(claim.id, claim.pid);
      return claim.lost();
    }
    const handles = this.#arrived.get(key);
    if (!claim || !claim.fds.every((fd) => handles?.has(fd))) return;
    this.#claims.delete(key);
    this.#arrived.delete(key);
    claim.ready(handles);
    if (!claim.stderrFirst) return;
    if (this.#stderrFirst.delete(key)) claim.stderrFirst();
    else this.#orderings.set(key, claim.stderrFirst);
  }
}

/**
 * Takes each descriptor that arrives on `helper`'s IPC channel before Node's channel
 * code reads the bytes that came with it, and gives it to `take`. Node keeps the raw
 * channel handle under a symbol of the ChildProcess and puts a received descriptor on
 * the handle's `pendingHandle` for its `onread`, which parses the lines; a descriptor
 * taken here is gone from Node's view, so its line is an ordinary internal message.
 * One descriptor per read at most (the kernel does not coalesce messages that carry
 * descriptors; Node's own protocol relies on the same), so the order of the
 * descriptors is the order of their lines. Returns false where that handle is not
 * found.
 */
function takeDescriptors(helper, take) {
  const channel = channelHandleOf(helper);
  const onread = channel?.onread;
  if (typeof onread !== "function" || !("pendingHandle" in channel)) return false;
  channel.onread = function (...args) {
    const handle = channel.pendingHandle;
    if (handle) {
      channel.pendingHandle = null;
      take(handle);
    }
    return onread.apply(this, args);
  };
  return true;
}
