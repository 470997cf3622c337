// spawnhost/pty: terminals with node-pty's API, created by the spawnhost helper on its
// launch threads (docs/pty.md). `spawn(file, args, options)` returns the terminal at
// once, as node-pty's does. On Windows the helper makes a ConPTY pseudo console and
// relays it (its answer is ENOTSUP, a failed start, where Windows has no ConPTY);
// node-pty's Windows options (useConpty, useConptyDll, conptyInheritCursor) are
// accepted and ignored: ConPTY is the only kind there is.
import { normalizePtyOptions } from "./options.js";
import { openMaster } from "./master.js";
import { startOnTerminal } from "./launch.js";
import { Terminal } from "./terminal.js";

/**
 * Starts `file` with `args` on a new terminal: node-pty's spawn(), with its defaults
 * (options.js).
 * @param {string} [file] default `sh` (Windows: COMSPEC, else cmd.exe)
 * @param {string[]|string} [args] a string is a command line (Windows only, as node-pty)
 * @param {object} [options] name, cols, rows, cwd, env, encoding, uid, gid,
 *   handleFlowControl, flowControlPause, flowControlResume (node-pty's Windows-only
 *   options are ignored)
 * @returns {Terminal}
 */
export function spawn(file, args, options) {
  const o = normalizePtyOptions(file, args, options);
  const master = openMaster();
  const { child, launched } = startOnTerminal(o.file, o.args, o.spawnOptions, [o.cols, o.rows], master);
  const terminal = new Terminal(o, child, master);
  // The errors Node's spawn() throws rather than emits (ENOTSUP: a Windows without
  // ConPTY; E2BIG...) reject the launch, and the child has no event for them: the
  // terminal shows them all the same.
  launched.catch((error) => terminal._startFailed(error));
  setImmediate(() => child.release());
  return terminal;
}

/** node-pty's other names for spawn (deprecated there). */
export const createTerminal = spawn;
export const fork = spawn;
export { Terminal };
export { open } from "./pair.js";
