// spawnhost/pty's options, read as node-pty 1.1 reads them: its defaults, and its errors
// (a plain Error saying "<name> must be a <type> (not a <type>)", thrown by spawn()).
// Values node-pty lets through and garbles (a size beyond 16 bits, which it wraps around)
// are brought into range instead (docs/pty.md).

export const DEFAULT_COLS = 80;
export const DEFAULT_ROWS = 24;
// What a window size can hold: 16 bits (struct winsize), 15 on Windows (ConPTY's COORD).
const MAX_DIMENSION = process.platform === "win32" ? 0x7fff : 0xffff;
// node-pty sanitizes the environment it copies from process.env (not one it is given;
// POSIX only): a terminal inside tmux or screen must not make its programs think they
// are in it too.
const INHERITED_ONLY = ["TMUX", "TMUX_PANE", "STY", "WINDOW", "WINDOWID", "TERMCAP", "COLUMNS", "LINES"];

/** node-pty's type check: a truthy `value` must be of `type`. */
function checkType(name, value, type) {
  if (value && typeof value !== type) throw new Error(`${name} must be a ${type} (not a ${typeof value})`);
}

/** A window dimension as the terminal can take it: whole, from 1 to the platform's largest. */
export function windowDimension(value) {
  return Math.max(1, Math.min(MAX_DIMENSION, Math.trunc(value)));
}

/** resize()'s check, node-pty's: a positive finite number each, else a plain Error. */
export function checkResize(cols, rows) {
  const positive = (v) => typeof v === "number" && v > 0 && v !== Infinity;
  if (!positive(cols) || !positive(rows)) throw new Error("resizing must be done using positive cols and rows");
}

/**
 * @param {string|undefined} file default `sh` (POSIX), COMSPEC or `cmd.exe` (Windows)
 * @param {string[]|string|undefined} args a string is a Windows command line
 * @param {object|undefined|null} options node-pty's IPtyForkOptions or IWindowsPtyForkOptions
 */
export function normalizePtyOptions(file, args, options, platform = process.platform) {
  const windows = platform === "win32";
  const o = options ?? {};
  if (typeof o !== "object") throw new TypeError(`options must be an object (not a ${typeof o})`);
  for (const [name, type] of [["name", "string"], ["cols", "number"], ["rows", "number"], ["cwd", "string"], ["env", "object"], ["uid", "number"], ["gid", "number"], ["encoding", "string"]]) {
    checkType(name, o[name], type);
  }
  file ||= windows ? process.env.COMSPEC || "cmd.exe" : "sh";
  if (typeof file !== "string") throw new Error(`file must be a string (not a ${typeof file})`);
  if (typeof args === "string" && !windows) throw new Error("args as a string is not supported on unix.");
  args ||= [];
  if (typeof args !== "string" && (!Array.isArray(args) || args.some((arg) => typeof arg !== "string"))) {
    throw new Error("args must be an array of strings");
  }
  const cwd = o.cwd || process.cwd();
  const env = { ...(o.env || process.env) };
  const name = o.name || env.TERM || (windows ? "Windows Shell" : "xterm");
  // node-pty's Windows terminal leaves the environment as it is.
  if (!windows) {
    if (!o.env || o.env === process.env) for (const variable of INHERITED_ONLY) delete env[variable];
    Object.assign(env, { PWD: cwd, TERM: name });
  }
  // undefined: utf8; null: Buffers; "" is utf8 too (node-pty's setEncoding("") is).
  const encoding = o.encoding === null ? null : o.encoding || "utf8";
  if (encoding !== null && !Buffer.isEncoding(encoding)) {
    const error = new TypeError(`Unknown encoding: ${encoding}`);
    error.code = "ERR_UNKNOWN_ENCODING";
    throw error;
  }
  const spawnOptions = { cwd, env, uid: o.uid, gid: o.gid };
  if (typeof args === "string") {
    // node-pty's Windows command line: the file (quoted when it holds blanks), a space,
    // then `args` as given: Node's windowsVerbatimArguments joins them so.
    const quoted = /[ \t]/.test(file) && !file.startsWith('"') ? `"${file}"` : file;
    Object.assign(spawnOptions, { argv0: quoted, windowsVerbatimArguments: true });
    args = args === "" ? [] : [args];
  }
  return {
    file,
    args,
    cols: windowDimension(o.cols || DEFAULT_COLS),
    rows: windowDimension(o.rows || DEFAULT_ROWS),
    spawnOptions,
    encoding,
    handleFlowControl: Boolean(o.handleFlowControl),
    flowControlPause: o.flowControlPause || "\x13",
    flowControlResume: o.flowControlResume || "\x11",
  };
}
