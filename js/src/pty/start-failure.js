// What a terminal shows when its program could not be started. node-pty forks first, so
// its child reports a failed chdir or exec on the terminal itself and exits with code 1
// (perror's words: "execvp(3) failed.: No such file or directory"); node-pty programs
// handle it in onExit. The helper reports the same failure before any process runs; the
// terminal shows the same line and ends the same way (terminal.js).
import { getSystemErrorMap } from "node:util";
import { LAUNCH_STAGE } from "../core/errors.js";

// The call node-pty's child names, by the helper's stage of the failure.
const CALL_BY_STAGE = { exec: "execvp(3)", chdir: "chdir(2)", setuid: "setuid(2)", setgid: "setgid(2)" };

/** The exit node-pty's child makes after such a failure. */
export const FAILED_START_EXIT = Object.freeze({ exitCode: 1, signal: 0 });

/**
 * The line (without its "\r\n") a terminal shows for `error`, a failed start.
 * @param {Error & { errno?: number, code?: string }} error
 */
export function startFailureText(error) {
  // E2BIG: a request too big for the helper's frame, which exec would refuse the same.
  const call = CALL_BY_STAGE[error.code === "E2BIG" ? "exec" : error[LAUNCH_STAGE]];
  // strerror's words: libuv's are the same but for the capital (Linux's glibc).
  const reason = getSystemErrorMap().get(error.errno)?.[1];
  const said = reason ? reason[0].toUpperCase() + reason.slice(1) : error.message;
  return call ? `${call} failed.: ${said}` : `spawnhost/pty: the terminal's program could not be started: ${said}`;
}
