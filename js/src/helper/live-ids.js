// The ids a channel hands out and who hears about each: requests and children the
// helper still owes an answer. Every callback runs in the async context of the call
// that launched the child, as node:child_process runs a child's events in its spawn's
// context, not in the context of whichever call started the helper (whose stdout
// delivers everything).

const MAX_ID = 0xffffffff;

/**
 * What a request or child registers to hear about its id.
 * @typedef {object} ChannelHandler
 * @property {(name: string, values: unknown[]) => void} onMessage
 * @property {(error: Error) => void} onGone the helper went away; nothing more will come
 * @property {(error: Error) => boolean} [onShutdown] shutdown() began: return true to keep
 *   hearing about the id (a running child, whose real end the helper reports), false to
 *   be settled now with `error` through onGone
 * @property {import("node:async_hooks").AsyncResource} [scope] the async context of the
 *   call that launched the child: every callback above runs in it
 */

/** The live ids of one channel (never 0, unique among live ids) and their handlers. */
export class LiveIds {
  /** @type {Map<number, ChannelHandler>} */
  #handlers = new Map();
  #nextId = 1;

  get size() {
    return this.#handlers.size;
  }

  /** Registers a handler under a fresh id. */
  add(handler) {
    let id = this.#nextId;
    while (this.#handlers.has(id)) id = id >= MAX_ID ? 1 : id + 1;
    this.#nextId = id >= MAX_ID ? 1 : id + 1;
    this.#handlers.set(id, handler);
    return id;
  }

  delete(id) {
    this.#handlers.delete(id);
  }

  has(id) {
    return this.#handlers.has(id);
  }

  /** The hot path: one message to the handler of `id`, if someone holds it. */
  deliver(id, name, values) {
    const handler = this.#handlers.get(id);
    if (handler === undefined) return;
    if (handler.scope === undefined) handler.onMessage(name, values);
    else handler.scope.runInAsyncScope(handler.onMessage, handler, name, values);
  }

  /** shutdown() began: each handler keeps its id or is settled with `error` now. */
  shutdown(error) {
    for (const [id, handler] of [...this.#handlers]) {
      if (handler.onShutdown && inScope(handler, handler.onShutdown, error)) continue;
      this.#handlers.delete(id);
      inScope(handler, handler.onGone, error);
    }
  }

  /** The helper went away: every handler hears `error` once, and no id is held after. */
  settleAll(error) {
    const handlers = [...this.#handlers.values()];
    this.#handlers.clear();
    for (const handler of handlers) inScope(handler, handler.onGone, error);
  }
}

// Calls one of a handler's callbacks in the handler's async context (if it has one).
function inScope(handler, callback, argument) {
  return handler.scope === undefined ? callback.call(handler, argument) : handler.scope.runInAsyncScope(callback, handler, argument);
}
