// Reads the helper's stdout: the bootstrap's lines first (over a transport), then
// frames, each handed to the handler of its id. The twin of helper/frame-writer.js.
import { FrameReader } from "../protocol/frames.js";

/**
 * @typedef {object} DispatchEvents
 * @property {() => void} heard anything arrived (the liveness watchdog)
 * @property {(values: unknown[]) => void} hello the helper's first frame
 * @property {(reason: string, cause?: Error) => void} broken the stream cannot go on: a
 *   bootstrap failure, a frame that breaks the protocol, a fatal error, stdout's end
 */

export class FrameDispatch {
  #reader = new FrameReader("to_node");
  /** @type {import("./bootstrap.js").BootstrapReader|null} */
  #bootstrap;
  /** @type {import("./handlers.js").ChannelHandlers} */
  #handlers;
  /** @type {import("./orphan-guard.js").OrphanGuard|null} */
  #orphans;
  /** @type {DispatchEvents} */
  #on;

  constructor({ bootstrap, handlers, orphans, on }) {
    this.#bootstrap = bootstrap;
    this.#handlers = handlers;
    this.#orphans = orphans;
    this.#on = on;
  }

  /** One chunk of the helper's stdout. */
  push(chunk) {
    this.#on.heard();
    if (this.#bootstrap && !this.#bootstrap.ready) {
      chunk = this.#bootstrap.push(chunk);
      if (this.#bootstrap.failure) return this.#on.broken(this.#bootstrap.failure);
      if (chunk === null || chunk.length === 0) return;
    }
    let messages;
    try {
      messages = this.#reader.push(chunk);
    } catch (error) {
      return this.#on.broken(`it broke the protocol: ${error.message}`, error);
    }
    for (const message of messages) this.#dispatch(message);
  }

  /** The helper's stdout ended. */
  end() {
    try {
      this.#reader.end();
      this.#on.broken("its stdout ended");
    } catch (error) {
      this.#on.broken(`its stdout ended inside a frame: ${error.message}`, error);
    }
  }

  #dispatch({ name, values }) {
    if (name === "hello") return this.#on.hello(values);
    if (name === "pong") return;
    if (name === "error") {
      const [id, fatal, message] = values;
      // An error about an id we no longer hold is a request that crossed the child's
      // last message on the wire (a late credit): nothing to report.
      if (id !== null) this.#handlers.deliver(id, name, values);
      else if (!fatal) process.emitWarning(`spawnhost helper: ${message}`, { type: "SpawnhostWarning" });
      if (fatal) this.#on.broken(`it reported a fatal error: ${message}`);
      return;
    }
    this.#orphans?.noteReceived(name, values);
    // Messages for an id nobody holds (a late `written` after exit) are dropped.
    this.#handlers.deliver(values[0], name, values);
  }
}
