// What the channel needs when its helper goes away: the last of the helper's stderr
// (it usually says why), the exit status Node can see, how to make sure the process
// is gone, and the one error every pending call then gets.
import { HelperVersionError, HostShutdownError, ProtocolError, helperExited } from "../core/errors.js";

const STDERR_TAIL_BYTES = 4096;

/** The last few KiB of the helper's stderr; echoed to Node's stderr with SPAWNHOST_DEBUG. */
export class StderrTail {
  #text = "";

  push(text) {
    if (process.env.SPAWNHOST_DEBUG) process.stderr.write(text);
    this.#text = (this.#text + text).slice(-STDERR_TAIL_BYTES);
  }

  lastLines(count) {
    return this.#text.trimEnd().split("\n").slice(-count).join("\n");
  }
}

/**
 * The exit status Node can see: none for a helper that left its parent (Node watches
 * only its first process, which exits once it forked).
 * @param {import("node:child_process").ChildProcess} child
 */
export function exitStatusKnown(child, leftParent) {
  return !leftParent && (child.exitCode !== null || child.signalCode !== null);
}

/** SIGKILL for the helper, and for its forked-away process when Node knows its pid. */
export function killHelper(child, leftParent, helperPid) {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (leftParent && helperPid && !child.stdout.readableEnded) {
    try { process.kill(helperPid, "SIGKILL"); } catch { /* already gone */ }
  }
}

/**
 * The error every pending call gets when the helper went away.
 * @param {{ reason: string, cause?: Error, hung: boolean, shutdownRequested: boolean,
 *   overTransport: boolean, helperPath: string, exitCode: number|null, signal: string|null,
 *   stderrTail: StderrTail, helperPid: number }} how
 */
export function goneError({ reason, cause, hung, shutdownRequested, overTransport, helperPath, exitCode, signal, stderrTail, helperPid }) {
  if (shutdownRequested && !hung) return new HostShutdownError("the ProcessHost was shut down before this call completed");
  if (cause instanceof HelperVersionError) return cause;
  // Whatever was seen first (stdout's end, a failed write, the exit), a transport that
  // ended is the cause: the connection dropped or could not be made.
  const why = overTransport && !hung && !(cause instanceof ProtocolError) ? `the transport ended: ${reason}` : reason;
  const error = helperExited({ helperPath, reason: why, exitCode, signal, hung, stderrTail: stderrTail.lastLines(10) });
  if (cause instanceof ProtocolError) error.cause = cause;
  // No hello, no request sent: a caller may safely try its launch elsewhere (HostPool).
  error.helperStarted = helperPid !== 0;
  return error;
}
