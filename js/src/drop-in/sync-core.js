// The one place a synchronous launch is carried out. It takes a request normalized by
// sync.js and returns the raw outcome; sync.js shapes that into Node's results and
// errors. Today it runs on node:child_process.spawnSync; the helper's blocking channel
// replaces this one function (spawnSyncViaHelper) without touching anything else.
import { nodeChildProcess } from "./shared-host.js";

/** Why sync calls do not reach the helper yet; stats() counts them under it. */
export const SYNC_FALLBACK_REASON = "sync path not available";

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
 * @property {number} maxBuffer bytes per output (Infinity for no limit)
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
 * @param {import("../host.js").ProcessHost} host the shared host, in helper mode: the
 *   helper's sync path runs the request on it (unused while Node runs it)
 * @returns {{ outcome: SyncOutcome, fallbackReason: string|null }} fallbackReason: the
 *   launch did not go through the helper, and why
 */
export function runSyncRequest(request, host) {
  const result = nodeChildProcess.spawnSync(request.file, request.args, {
    argv0: request.argv0,
    cwd: request.cwd,
    env: envFromPairs(request.envPairs),
    stdio: request.stdio,
    input: request.input,
    timeout: request.timeout,
    killSignal: request.killSignal,
    maxBuffer: request.maxBuffer,
    uid: request.uid,
    gid: request.gid,
    windowsHide: request.windowsHide,
    windowsVerbatimArguments: request.windowsVerbatimArguments,
  });
  return {
    outcome: {
      pid: result.pid,
      stdout: result.stdout ?? null,
      stderr: result.stderr ?? null,
      status: result.status,
      signal: result.signal,
      error: result.error?.code,
    },
    fallbackReason: SYNC_FALLBACK_REASON,
  };
}

function envFromPairs(pairs) {
  const env = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=", 1); // Windows keeps keys like "=C:"
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}
