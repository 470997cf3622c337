// The one place a synchronous launch is carried out. It takes a request normalized by
// sync.js and returns the raw outcome; sync.js shapes that into Node's results and
// errors. The shared host runs it: through the helper's blocking channel in helper mode
// (sync/launch.js), so that the call costs the same whatever this process's size.

/**
 * @typedef {object} SyncRequest
 * @property {string} file the program (the shell, with `shell`)
 * @property {string[]} args its arguments, argv[0] excluded
 * @property {string} argv0
 * @property {string[]} envPairs "KEY=value"
 * @property {string|undefined} cwd
 * @property {("pipe"|"ignore"|"inherit")[]} stdio fds 0-2
 * @property {Buffer|undefined} input written to stdin, then EOF
 * @property {number} timeout milliseconds, 0 for none
 * @property {string} killSignal e.g. "SIGTERM"
 * @property {number} maxBuffer bytes of stdout and stderr together, as Node counts them
 *   (Infinity for no limit)
 * @property {number|undefined} uid
 * @property {number|undefined} gid
 * @property {boolean} windowsHide
 * @property {boolean} windowsVerbatimArguments
 */

/**
 * @typedef {object} SyncOutcome
 * @property {number} pid 0 when no process was created
 * @property {Buffer|null} stdout null unless piped
 * @property {Buffer|null} stderr
 * @property {number|null} status
 * @property {string|null} signal
 * @property {string|undefined} error errno name: the launch failed (ENOENT), the
 *   timeout struck (ETIMEDOUT) or an output passed maxBuffer (ENOBUFS)
 */

/**
 * Runs a synchronous launch to completion.
 * @param {SyncRequest} request
 * @param {import("../host/host.js").ProcessHost} host the shared host
 * @returns {{ outcome: SyncOutcome, fallbackReason: string|null }} fallbackReason: the
 *   launch did not go through the helper, and why
 */
export function runSyncRequest(request, host) {
  const result = host.launchSync(request);
  return {
    outcome: {
      pid: result.pid,
      stdout: result.stdout,
      stderr: result.stderr,
      status: result.status,
      signal: result.signal,
      error: result.error?.code,
    },
    fallbackReason: result.viaNode ? `${host.mode === "inline" ? "inline mode" : "the helper has no sync channel"}` : null,
  };
}
