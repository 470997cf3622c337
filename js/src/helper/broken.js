// The helpers found automatically that could not start in this process, and the one
// warning each gets. The record lives with the code that finds helpers (helper/locate.js
// skips a helper known to be broken); the fallback backend (host/backend-fallback.js) fills it
// when a start fails before the hello.
import { refusedStartAdvice } from "./start-refused.js";

/** Helper paths that failed to start in this process, and why: later hosts skip them. */
const brokenHelpers = new Map();

/**
 * Why the automatically found helper at `path` is known not to start in this process,
 * or undefined.
 * @param {string} path
 */
export function knownBrokenHelper(path) {
  return brokenHelpers.get(path);
}

/**
 * Records that the helper at `path` cannot start, and warns about it once per helper
 * per process.
 * @param {string} path
 * @param {string} cause what went wrong, as the helper's error said it
 * @param {Error} [startError] that error itself: what the OS said (helper/start-refused.js)
 */
export function reportBrokenHelper(path, cause, startError) {
  if (brokenHelpers.has(path)) return;
  brokenHelpers.set(path, cause);
  const sentence = /[.!?]$/.test(cause.trimEnd()) ? cause.trimEnd() : `${cause.trimEnd()}.`;
  // A helper the OS refused by policy is not broken: the warning says what to change.
  const refused = refusedStartAdvice(startError);
  process.emitWarning(
    `spawnhost: the helper ${path} could not start, so child processes are created inline ` +
    `(node:child_process, blocking the event loop while each starts). Cause: ${sentence} ` +
    (refused ? `${refused} ` : "This is a bug in spawnhost or its platform package: please report it, with this message, " +
    "your OS version and architecture, and `file` of that helper. ") +
    "Pass { fallback: \"error\" } to make this an error, or { mode: \"inline\" } to choose inline mode.",
    { code: "SPAWNHOST_BROKEN_HELPER" },
  );
}
