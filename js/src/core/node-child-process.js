// node:child_process's own functions, as they were when this module first loaded.
// register.js loads it before it puts its stand-ins in their place, so every room that
// must reach Node itself (the drop-in's fallback, the inline backend, the helper's own
// start) gets Node's functions here, whatever the builtin module holds by then.
import { createRequire } from "node:module";

/** The module object `require("node:child_process")` returns (register.js patches it). */
export const builtinModule = createRequire(import.meta.url)("node:child_process");

// The key under which a stand-in of register.js holds Node's function: another copy of
// spawnhost, loaded after this one registered, still finds Node's own.
export const NODE_FUNCTION = Symbol.for("spawnhost.nodeFunction");
const own = (fn) => fn[NODE_FUNCTION] ?? fn;

/** node:child_process's own functions, as they were before anything replaced them. */
export const nodeChildProcess = Object.freeze({
  spawn: own(builtinModule.spawn),
  exec: own(builtinModule.exec),
  execFile: own(builtinModule.execFile),
  fork: own(builtinModule.fork),
  spawnSync: own(builtinModule.spawnSync),
  execSync: own(builtinModule.execSync),
  execFileSync: own(builtinModule.execFileSync),
  ChildProcess: builtinModule.ChildProcess,
});
