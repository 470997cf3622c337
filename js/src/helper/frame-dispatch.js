// Reads the helper's stdout: the bootstrap's lines first (over a transport), then
// frames, each handed to the handler of its id. The twin of helper/frame-writer.js.
//
// Each relayed stream's data gets a turn of its own, as separate pipes would: Node reads
// each pipe in its own callback, with every microtask and nextTick run between two, and
// code that merges a child's stdout and stderr line by line (nano-spawn's iterator)
// relies on that. So when one read from the helper holds data for a stream other than
// the one whose data this turn delivered, the rest of it waits for the next loop turn
// (setImmediate), in order, the helper's stdout paused meanwhile. A single stream's
// data, however many frames, goes in one turn.
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
  /** @type {import("./live-ids.js").LiveIds} */
  #handlers;
  /** @type {import("./orphan-guard.js").OrphanGuard|null} */
  #orphans;
  /** @type {DispatchEvents} */
  #on;
  /** @type {import("node:stream").Readable|undefined} the helper's stdout, paused while messages wait */
  #source;
  // Messages read but left for a later turn, and where they resume; the stream whose
  // data this turn delivered (id and fd; id 0 for none yet: ids start at 1); whether
  // the stdout ended behind them.
  #waiting = null;
  #next = 0;
  #streamId = 0;
  #streamFd = 0;
  #ended = false;

  constructor({ bootstrap, handlers, orphans, on, source }) {
    this.#bootstrap = bootstrap;
    this.#handlers = handlers;
    this.#orphans = orphans;
    this.#on = on;
    this.#source = source;
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
    if (this.#waiting !== null) {
      // Read before the pause took effect: behind what waits.
      for (const message of messages) this.#waiting.push(message);
      return;
    }
    this.#streamId = 0;
    this.#run(messages, 0);
  }

  /** Delivers what waits for a later turn now, in order (the helper went away). */
  flush() {
    const messages = this.#waiting;
    if (messages === null) return;
    this.#waiting = null;
    for (let i = this.#next; i < messages.length; i++) this.#dispatch(messages[i]);
  }

  #run(messages, from) {
    for (let i = from; i < messages.length; i++) {
      const message = messages[i];
      if (message.name === "data") {
        const id = message.values[0];
        const fd = message.values[1];
        if (this.#streamId !== 0 && (id !== this.#streamId || fd !== this.#streamFd)) {
          this.#waiting = messages;
          this.#next = i;
          this.#source?.pause();
          setImmediate(() => this.#resume());
          return;
        }
        this.#streamId = id;
        this.#streamFd = fd;
      }
      this.#dispatch(message);
    }
  }

  #resume() {
    const messages = this.#waiting;
    if (messages === null) return;
    this.#waiting = null;
    this.#streamId = 0;
    try {
      this.#run(messages, this.#next);
    } finally {
      // Also past a listener that threw: the channel reads on.
      if (this.#waiting === null) {
        if (this.#ended) this.#end();
        else this.#source?.resume();
      }
    }
  }

  /** The helper's stdout ended (after what waits is delivered). */
  end() {
    this.#ended = true;
    if (this.#waiting === null) this.#end();
  }

  #end() {
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
