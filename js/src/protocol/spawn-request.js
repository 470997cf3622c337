// The options map of a `spawn` frame (schema/protocol.json, spawn_options), built from
// a request normalized by core/options.js.
import { STDIO_KIND } from "./generated.js";

/**
 * Read credit granted per output stream, in bytes: the spawn request's first grant, and
 * what launch/streams.js tops a reading stream back up to. Large enough that a grant is
 * not a wake-up per chunk (64 KiB windows capped output at ~13% of child_process's rate).
 */
export const OUTPUT_CREDIT = 512 * 1024;

/**
 * @param {object} r a normalized request
 * @returns {Record<string, unknown>} the spawn options the helper understands
 */
export function spawnRequestOptions(r) {
  // A helper across a transport (r.remote) is on another machine: Node's cwd and
  // environment mean nothing there, and absent, the remote helper's own apply.
  const sameMachine = r.platform === process.platform && !r.remote;
  const options = {
    // The helper's own cwd is where Node was when the helper started; a call
    // without cwd means Node's cwd now (a helper of another platform, run through
    // wine, cannot use Node's path: it keeps its own).
    cwd: r.cwd ?? (sameMachine ? nodeCwd() : undefined),
    // As child_process does, the child learns of its channel from the environment.
    env: r.ipc ? [...r.envPairs, "NODE_CHANNEL_FD=3", `NODE_CHANNEL_SERIALIZATION_MODE=${r.serialization}`] : r.envPairs,
    stdio: r.stdio.map((kind) => STDIO_KIND[kind]),
  };
  if (r.cwd === undefined && sameMachine) options.node_cwd = true;
  if (options.cwd === undefined) delete options.cwd;
  if (options.env === undefined) delete options.env;
  if (r.spawnargs[0] !== r.spawnfile) options.argv0 = r.spawnargs[0];
  if (r.detached) options.detached = true;
  if (r.timeout > 0) options.timeout_ms = r.timeout;
  if (r.killSignal !== "SIGTERM") options.kill_signal = r.killSignal;
  // maxBuffer is applied by launch/exec-run.js as Node's execFile applies it: a decoded chunk
  // that crosses it keeps maxBuffer - before characters, which can take up to three
  // bytes each. The helper stops relaying (and ends the child) only past that.
  if (r.kind === "exec" && Number.isFinite(r.maxBuffer)) options.max_buffer = Math.min(Math.floor(r.maxBuffer) * 3, Number.MAX_SAFE_INTEGER);
  // A blocking call's maxBuffer counts both outputs together and is the helper's to
  // enforce as it reads them: the kill must come before a child that writes and exits
  // is gone (Node's spawnSync kills from its read callback).
  if (r.kind === "sync" && r.maxBuffer > 0 && Number.isFinite(r.maxBuffer)) options.max_output = Math.min(Math.floor(r.maxBuffer), Number.MAX_SAFE_INTEGER);
  if (r.kind === "spawn") options.credit = OUTPUT_CREDIT;
  if (r.ipc) options.ipc = true;
  if (r.uid !== undefined) options.uid = r.uid;
  if (r.gid !== undefined) options.gid = r.gid;
  if (r.windowsHide) options.windows_hide = true;
  if (r.windowsVerbatimArguments) options.windows_verbatim_arguments = true;
  if (r.pty) options.pty = r.pty; // [cols, rows]: spawnhost/pty's terminal child
  return options;
}

// Node's current directory as a path, for a launch without `cwd`. Where it was deleted,
// process.cwd() throws (or names a path that is gone, from its cache): the helper then
// starts the child where Node really is (spawn option node_cwd), as Node's own would.
function nodeCwd() {
  try {
    return process.cwd();
  } catch (error) {
    if (error?.code === "ENOENT") return undefined;
    throw error;
  }
}
