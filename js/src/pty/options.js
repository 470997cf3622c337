// spawnhost/pty's options, read as node-pty reads them (defaults included), checked the
// way the rest of spawnhost checks options: a TypeError or RangeError at the call.
import { invalidOption } from "../core/errors.js";

export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;
const DEFAULT_NAME = "xterm";

/** A window dimension: an integer from 1 to 65535 (a winsize field is 16 bits). */
export function checkDimension(name, value) {
  if (!Number.isInteger(value) || value < 1 || value > 0xffff) {
    const error = new RangeError(`The "${name}" option must be an integer from 1 to 65535. Received ${String(value)}`);
    error.code = "ERR_OUT_OF_RANGE";
    throw error;
  }
  return value;
}

/**
 * @param {string} file
 * @param {string[]|string|undefined} args
 * @param {object|undefined} options node-pty's IPtyForkOptions
 */
export function normalizePtyOptions(file, args, options = {}) {
  if (typeof file !== "string" || file === "") throw invalidOption("file", file, "a non-empty string");
  if (typeof args === "string") throw invalidOption("args", args, "an array of strings (a command line string is node-pty's Windows form)");
  if (args !== undefined && !Array.isArray(args)) throw invalidOption("args", args, "an array of strings");
  if (options === null || typeof options !== "object") throw invalidOption("options", options, "an object");
  const o = options;
  const env = { ...(o.env ?? process.env) };
  env.TERM = o.name ?? env.TERM ?? DEFAULT_NAME;
  if (typeof env.TERM !== "string") throw invalidOption("name", o.name, "a string");
  const encoding = o.encoding === undefined ? "utf8" : o.encoding;
  if (encoding !== null && !Buffer.isEncoding(encoding)) throw invalidOption("encoding", encoding, "a Buffer encoding or null");
  return {
    file,
    args: args ?? [],
    cols: checkDimension("cols", o.cols ?? DEFAULT_COLS),
    rows: checkDimension("rows", o.rows ?? DEFAULT_ROWS),
    spawnOptions: { cwd: o.cwd, env, uid: o.uid, gid: o.gid },
    encoding,
    handleFlowControl: o.handleFlowControl === true,
    flowControlPause: o.flowControlPause ?? "\x13",
    flowControlResume: o.flowControlResume ?? "\x11",
  };
}
