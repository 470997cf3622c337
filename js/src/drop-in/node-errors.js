// The drop-in face hands out node:child_process's own error classes. spawnhost's
// errors for the same failures (HostSpawnError, HostExecError) carry the same fields
// and messages; here they become the plain Error (or RangeError) Node creates, with
// the fields in Node's order and none that Node's callbacks do not have.
import { SpawnhostError } from "../core/errors.js";

// Fields spawnhost adds for promisified calls; Node's callback errors have none of them
// (its promisify.custom adds stdout and stderr itself).
const NOT_IN_CALLBACK_ERRORS = new Set(["stdout", "stderr", "timedOut"]);
const NOT_COPIED = new Set(["stack", "message", "name", ...NOT_IN_CALLBACK_ERRORS]);

/**
 * An error of a child's `error` event or a failed execFile, as Node would create it.
 * Errors about the helper itself (HelperExitedError, ...) have no Node equivalent and
 * keep their class.
 * @param {Error} error
 * @returns {Error}
 */
export function asNodeError(error) {
  if (!(error instanceof SpawnhostError)) {
    for (const key of NOT_IN_CALLBACK_ERRORS) delete error?.[key];
    return error;
  }
  if (error.name === "HelperExitedError" || error.name === "HelperNotFoundError" || error.name === "HostShutdownError") return error;
  const NodeClass = error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER" ? RangeError : Error;
  const copy = new NodeClass(error.message, error.cause === undefined ? undefined : { cause: error.cause });
  for (const key of Object.keys(error)) if (!NOT_COPIED.has(key)) copy[key] = error[key];
  return copy;
}
