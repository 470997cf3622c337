// spawnhost/pty: terminals with node-pty's API, created by the spawnhost helper on its
// launch threads (docs/pty.md). `spawn(file, args, options)` returns the terminal at
// once, as node-pty's does.
import { ProcessHost } from "../host/host.js";
import { normalizeSpawnRequest } from "../core/options.js";
import { normalizePtyOptions } from "./options.js";
import { openMaster } from "./master.js";
import { Terminal } from "./terminal.js";

let host = null;

// One helper for every terminal of this thread; the helper only, never
// child_process (which has no terminal to give).
function ptyHost() {
  host ??= new ProcessHost({ mode: "helper", fallback: "error" });
  return host;
}

/**
 * Starts `file` with `args` on a new terminal.
 * @param {string} file
 * @param {string[]} [args]
 * @param {object} [options] name, cols, rows, cwd, env, encoding, uid, gid,
 *   handleFlowControl, flowControlPause, flowControlResume
 * @returns {Terminal}
 */
export function spawn(file, args, options) {
  if (process.platform === "win32") {
    const error = new Error("spawnhost/pty: Windows terminals (ConPTY) are not built yet; see docs/pty.md");
    error.code = "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM";
    throw error;
  }
  const o = normalizePtyOptions(file, args, options);
  const master = openMaster();
  let request;
  try {
    // Given as a stream holding the handle: the handle itself has an `fd`, which would
    // read as a descriptor number of Node's.
    const stdio = master ? [{ handle: master }, "ignore", "ignore"] : ["pipe", "pipe", "ignore"];
    request = normalizeSpawnRequest(o.file, o.args, { ...o.spawnOptions, stdio }, { platform: process.platform, givenAvailable: master !== null });
  } catch (error) {
    master?.close();
    throw error;
  }
  request.pty = [o.cols, o.rows];
  const { child } = ptyHost()._startLaunch(request);
  const terminal = new Terminal(o, child, master);
  setImmediate(() => child._release());
  return terminal;
}

/** node-pty's other name for spawn. */
export const createTerminal = spawn;
export { Terminal };
