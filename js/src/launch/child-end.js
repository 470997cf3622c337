// How a helper-mode child's end reaches its user, as child_process orders it: the
// exit's fields, then `exit`, then (a tick later, as its flushStdio) the outputs
// nobody reads drained, so that `close` can follow them.
import { EXIT_FLAG } from "../protocol/generated.js";
import { USED_AS_STDIO } from "../core/stdio-streams.js";

/**
 * Sets the child's exit fields, ends its stdin and emits `exit`; then `afterExit`
 * once the outputs nobody listens to flow.
 * @param {import("./host-child.js").HostChild} child
 */
export function deliverExit(child, status, signal, flags, afterExit) {
  child.exitCode = signal === null ? status : null;
  child.signalCode = signal;
  child._exitFlags = flags;
  if (flags & EXIT_FLAG.timed_out) child.killed = true; // the helper sent kill_signal
  // As child_process does: stdin goes away with the process, and outputs nobody
  // listens to are drained so that `close` can follow.
  child.stdin?.destroy();
  child.deliver("exit", child.exitCode, signal);
  drainAfterExit(child, afterExit);
}

/**
 * A launch that never produced a process before its deadline: ended as a timeout, with
 * the kill signal, as child_process reports a child its timeout killed.
 */
export function setTimedOutBeforeStart(child, killSignal) {
  child.killed = true;
  child._exitFlags = EXIT_FLAG.timed_out;
  child.signalCode = killSignal;
}

/**
 * Only once the caller could attach listeners (the child may exit before spawn() has
 * even resolved), and on the next tick, as child_process's flushStdio: the `exit`
 * listener's last chance to start reading.
 */
export function drainAfterExit(child, then) {
  child.afterDelivered(() => process.nextTick(() => {
    for (const stream of [child.stdout, child.stderr]) {
      if (stream && stream.readable && !stream._readableState.readableListening && !stream[USED_AS_STDIO]) stream.resume();
    }
    then();
  }));
}

/**
 * child_process raises `close` a loop turn after the last stream closed (it waits for
 * libuv's close callbacks); code that awaits the output and then listens for `close`
 * relies on that, so we wait a turn as well.
 */
export function deliverClose(child) {
  setImmediate(() => child.deliver("close", child.exitCode, child.signalCode));
}
