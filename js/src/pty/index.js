// spawnhost/pty: terminals with node-pty's API, created by the spawnhost helper on its
// launch threads (docs/pty.md). `spawn(file, args, options)` returns the terminal at
// once, as node-pty's does. On Windows the helper makes a ConPTY pseudo console and
// relays it (its answer is ENOTSUP, an `error` event, where Windows has no ConPTY);
// node-pty's Windows options (useConpty, useConptyDll, conptyInheritCursor) are
// accepted and ignored: ConPTY is the only kind there is.
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
 *   handleFlowControl, flowControlPause, flowControlResume (node-pty's Windows-only
 *   options are ignored)
 * @returns {Terminal}
 */
export function spawn(file, args, options) {
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
  const { child, launched } = ptyHost()._startLaunch(request);
  const terminal = new Terminal(o, child, master);
  // The errors Node's spawn() throws rather than emits (ENOTSUP: a Windows without
  // ConPTY; E2BIG...) reject the launch, and the child has no event for them: the
  // terminal emits them as `error` all the same.
  launched.catch((error) => terminal._startFailed(error));
  setImmediate(() => child._release());
  return terminal;
}

/** node-pty's other name for spawn. */
export const createTerminal = spawn;
export { Terminal };
