// The call's deadline: the one place on this side of the pipe that turns a request's
// `timeout` into timers. Every face calls it; the helper keeps the same deadline for the
// running process (helper/session/deadline.hpp), so a child is ended on time even while
// Node's thread is busy. Who applies which part, by face: docs/architecture.md, "The
// call's deadline".

// The longest delay setTimeout keeps; a launch deadline past it would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;
// A launch the helper has not even started this long after its deadline (every launch
// thread stuck) is given up on the calling thread, and reported as the timeout it is.
const LAUNCH_GRACE_MS = 1000;

/** True when the request has a deadline at all (a positive `timeout`). */
export function hasDeadline(request) {
  return request.timeout > 0;
}

/**
 * Node's own timer for a call: `expired()` once `timeout` ms have passed (execFile's
 * exithandler, spawn's kill). Not clamped, as Node does not clamp it.
 * @returns {ReturnType<typeof setTimeout>|null} for clearTimeout; null: no deadline
 */
export function startCallTimer(request, expired) {
  return hasDeadline(request) ? setTimeout(expired, request.timeout) : null;
}

/**
 * The calling thread's bound on a launch the helper has not started: `overdue()` a
 * second after the deadline, on a timer that keeps no loop alive.
 * @returns {ReturnType<typeof setTimeout>|null}
 */
export function startLaunchDeadline(request, overdue) {
  if (!hasDeadline(request)) return null;
  return setTimeout(overdue, Math.min(request.timeout + LAUNCH_GRACE_MS, MAX_TIMER_MS)).unref();
}

/**
 * A blocking call's deadline, in performance.now() time: counted from the call until
 * the child started, then again from its start, as Node's timer starts once uv_spawn
 * returned. Infinity: none.
 */
export class BlockingDeadline {
  #timeout;
  at;

  constructor(request) {
    this.#timeout = hasDeadline(request) ? request.timeout : 0;
    this.at = this.#timeout ? performance.now() + this.#timeout : Infinity;
  }

  /** The child started: its timeout counts from now. */
  childStarted() {
    if (this.#timeout) this.at = performance.now() + this.#timeout;
  }
}

/**
 * The request as the helper gets it when Node's thread alone keeps the deadline, as the
 * drop-in's calls do: given to the helper, a launch still queued at its deadline would
 * never start, where Node's child always exists and is killed.
 */
export function deadlineKeptByCaller(request) {
  return { __proto__: null, ...request, timeout: 0 };
}
