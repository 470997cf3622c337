// Telling a stopped or hung helper from a busy one, for a Channel: the helper must say
// hello within answerMs of starting; later, while something waits on it and it has said
// nothing for answerMs, it is asked for a pong, which must come within answerMs more.
// Every decision first lets this thread read what already arrived (one poll phase):
// the thread may itself have been blocked past the deadline (a spawnSync) with the
// answer waiting in the socket.

/** The start deadline and the liveness watchdog of one helper. */
export class Liveness {
  #answerMs;
  #hooks;
  #lastHeard = performance.now();
  #pingSentAt = 0;
  #startDeadline;
  #watchdog;

  /**
   * @param {number} answerMs
   * @param {{ greeted: () => boolean, waiting: () => boolean, ping: () => void, hung: (reason: string) => void }} hooks
   *   greeted: its hello arrived; waiting: something waits on it; ping: send a ping;
   *   hung: it failed a deadline (called at most once per deadline)
   */
  constructor(answerMs, hooks) {
    this.#answerMs = answerMs;
    this.#hooks = hooks;
    this.#startDeadline = setTimeout(() => setImmediate(() => {
      if (!hooks.greeted()) hooks.hung(`it sent no hello within ${answerMs} ms`);
    }), answerMs);
    this.#startDeadline.unref();
    this.#watchdog = setInterval(() => this.#check(), answerMs);
    this.#watchdog.unref();
  }

  /** Something arrived from the helper. */
  heard() {
    this.#lastHeard = performance.now();
    this.#pingSentAt = 0;
  }

  /** Its hello arrived: the start deadline is met. */
  greeted() {
    clearTimeout(this.#startDeadline);
  }

  /** The helper is going away: no more checks. */
  stop() {
    clearTimeout(this.#startDeadline);
    clearInterval(this.#watchdog);
  }

  // Runs every answerMs.
  #check() {
    const now = performance.now();
    if (this.#pingSentAt === 0) {
      if (!this.#hooks.waiting() || now - this.#lastHeard < this.#answerMs || !this.#hooks.greeted()) return;
      this.#pingSentAt = now;
      this.#hooks.ping();
      return;
    }
    if (now - this.#pingSentAt < this.#answerMs) return;
    setImmediate(() => {
      if (this.#pingSentAt !== 0 && performance.now() - this.#pingSentAt >= this.#answerMs) {
        this.#hooks.hung(`it answered no liveness check for ${this.#answerMs} ms (stopped or hung)`);
      }
    });
  }
}
