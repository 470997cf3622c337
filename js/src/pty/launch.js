// The launches of spawnhost/pty: a program on a new terminal, through this thread's
// helper (index.js for spawn(), pair.js for open()).
import { ProcessHost } from "../host/host.js";
import { normalizeSpawnRequest } from "../core/options.js";

let host = null;

// One helper for every terminal of this thread; the helper only, never
// child_process (which has no terminal to give).
function ptyHost() {
  host ??= new ProcessHost({ mode: "helper", fallback: "error" });
  return host;
}

/**
 * Starts `file` with `args` on a new terminal of `size` ([cols, rows]), on `master` (a
 * pty master of Node's, handed over: master.js) or on one the helper opens and relays
 * (null). With no size, `master` is only the child's stdin (pair.js: a slave side).
 * Returns the launch (host.js startLaunch).
 */
export function startOnTerminal(file, args, spawnOptions, size, master) {
  let request;
  try {
    // Given as a stream holding the handle: the handle itself has an `fd`, which would
    // read as a descriptor number of Node's.
    const stdio = master ? [{ handle: master }, "ignore", "ignore"] : ["pipe", "pipe", "ignore"];
    request = normalizeSpawnRequest(file, args, { ...spawnOptions, stdio }, { platform: process.platform, givenAvailable: master !== null });
  } catch (error) {
    master?.close();
    throw error;
  }
  if (size) request.pty = size;
  return ptyHost().startLaunch(request);
}
