// Writes frames to the helper: every frame sent in one tick (a burst of launches, a big
// stdin write) leaves in one write to the pipe, corked until the end of the tick.
import { directPipeWriter } from "../sync/windows.js";

export class FrameWriter {
  /** @type {import("node:stream").Writable} the helper's stdin, or its fd 6 */
  #input;
  #corked = false;
  /** Windows Node: frames bypass the Writable (sync/windows.js) */
  #direct;

  /** @param {import("node:stream").Writable} input */
  constructor(input) {
    this.#input = input;
    this.#direct = directPipeWriter(input);
  }

  /** Queues the parts of one or more frames; `onFlushed` after the last has gone. Throws as the stream's write does. */
  write(parts, onFlushed) {
    if (this.#direct) return this.#direct.write(parts, onFlushed);
    const input = this.#input;
    if (!this.#corked) {
      this.#corked = true;
      input.cork();
      process.nextTick(() => {
        this.#corked = false;
        input.uncork();
      });
    }
    for (let i = 0; i < parts.length; i++) input.write(parts[i], i === parts.length - 1 ? onFlushed : undefined);
  }

  /**
   * Hands every frame queued so far to the kernel now instead of at the end of this
   * tick: true when nothing is left queued in Node, false when the pipe is full.
   */
  flushNow() {
    if (this.#direct) return this.#direct.flushNow();
    if (this.#corked) {
      this.#corked = false; // the pending uncork in write() then finds nothing corked
      this.#input.uncork();
    }
    return this.#input.writableLength === 0;
  }

  /** Ends the stream after every frame queued so far. */
  end() {
    if (this.#direct) this.#direct.end();
    else this.#input.end();
  }
}
