// Descriptors the helper hands over on Node's own IPC channel to it (the "ipc" stdio
// entry of helper/process.js): one NODE_HANDLE per piped stdio of a launch, which
// Node's channel code acknowledges and emits as `internalMessage` with the raw Pipe
// handle (type "net.Native"). They are kept here by launch until the launch claims
// them; the launch joins them with its `spawned` frame (launch/handover.js).

/** The `cmd` of the `msg` the helper sends with each descriptor (helper/node_ipc.hpp). */
export const STDIO_HANDLE_CMD = "NODE_SPAWNHOST_STDIO";

/** The descriptors one helper handed over, by launch. */
export class HandleInbox {
  /** Node's Pipe handle class (the helper's own stdio are Pipes): for pending sockets. */
  Pipe;
  /** The helper's listener for forked children's channels (launch/node-channel.js), or null. */
  channelListener = null;
  /** @type {Map<string, Map<number, object>>} arrived, not claimed yet */
  #arrived = new Map();
  /** @type {Map<string, { fds: number[], ready: (handles: Map<number, object>) => void }>} */
  #claims = new Map();
  /** @type {Set<string>} given up: what still comes for them is closed */
  #discarded = new Set();
  #closed = false;
  #helper;

  /** @param {import("node:child_process").ChildProcess} helper started with an "ipc" entry */
  constructor(helper) {
    this.#helper = helper;
    this.Pipe = helper.stdout._handle.constructor;
    helper.on("internalMessage", (message, handle) => {
      if (message?.cmd === STDIO_HANDLE_CMD) this.#arrive(message, handle);
    });
    // The helper is gone: nothing more comes, and nobody claims what did.
    helper.once("close", () => this.close());
  }

  /**
   * Calls `ready` with the handles of `fds` for the launch `id` whose process is `pid`,
   * now if they are all here, or once they are. The launch's end (or the helper's) is
   * `discard`.
   */
  claim(id, pid, fds, ready) {
    const key = `${id}:${pid}`;
    const claim = { fds, ready };
    this.#claims.set(key, claim);
    this.#tryComplete(key);
  }

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

  /** The launch is over before it took its handles: close them, now and when they come. */
  discard(id, pid) {
    const key = `${id}:${pid}`;
    this.#claims.delete(key);
    this.#discarded.add(key);
    for (const handle of this.#arrived.get(key)?.values() ?? []) handle.close();
    this.#arrived.delete(key);
  }

  /** The helper is gone: what arrived and was not claimed is closed. */
  close() {
    this.#closed = true;
    for (const handles of this.#arrived.values()) for (const handle of handles.values()) handle.close();
    this.#arrived.clear();
    this.#claims.clear();
  }

  #arrive({ id, pid, fd }, handle) {
    const key = `${id}:${pid}`;
    if (!handle) return;
    if (this.#closed || this.#discarded.has(key)) {
      handle.close();
      return;
    }
    let handles = this.#arrived.get(key);
    if (!handles) this.#arrived.set(key, (handles = new Map()));
    handles.get(fd)?.close();
    handles.set(fd, handle);
    this.#tryComplete(key);
  }

  #tryComplete(key) {
    const claim = this.#claims.get(key);
    const handles = this.#arrived.get(key);
    if (!claim || !claim.fds.every((fd) => handles?.has(fd))) return;
    this.#claims.delete(key);
    this.#arrived.delete(key);
    claim.ready(handles);
  }
}
