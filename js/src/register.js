// spawnhost/register: `node --import spawnhost/register app.js` (or NODE_OPTIONS, or
// `import "spawnhost/register"` first in an entry file) sends every launch the whole
// process makes through node:child_process to the spawnhost helper. It swaps the
// builtin module's functions for spawnhost/child_process's and re-syncs the builtin's
// ESM named exports, so `require("child_process")`, default and named imports, and
// libraries in node_modules all reach the helper.
//
// The flag costs nothing until it is used: what it installs at start is a stand-in per
// function, from node builtins alone. The first call of any of them loads the drop-in
// (synchronously: spawn() and spawnSync() answer in the call), asks the shared host
// whether a helper fits here, and puts the drop-in's functions in place, or Node's own
// again where none fits (SPAWNHOST_INLINE_FALLBACK, warned once). A stand-in someone
// kept a reference to forwards to whichever was chosen.
import { createRequire, syncBuiltinESMExports } from "node:module";
import { NODE_FUNCTION, builtinModule, nodeChildProcess } from "./core/node-child-process.js";

// util.promisify.custom, by its registered name (node:util need not load for it).
const PROMISIFY_CUSTOM = Symbol.for("nodejs.util.promisify.custom");
const REPLACED = ["spawn", "exec", "execFile", "fork", "spawnSync", "execSync", "execFileSync"];
const SPECIFIER = "spawnhost/register";
const require = createRequire(import.meta.url);

if (!builtinModule.spawn[NODE_FUNCTION]) {
  let chosen = null;
  const choose = () => {
    if (chosen) return chosen;
    chosen = chooseFunctions();
    for (const name of REPLACED) builtinModule[name] = chosen[name];
    syncBuiltinESMExports();
    return chosen;
  };
  for (const name of REPLACED) builtinModule[name] = standIn(name, nodeChildProcess[name], choose);
  syncBuiltinESMExports();
}

// The drop-in's functions where the shared host runs a helper, else Node's own.
function chooseFunctions() {
  if (process.features.require_module !== true) {
    throw new Error(`spawnhost/register loads spawnhost/child_process synchronously at the first launch, which needs require() of ES modules: Node ^20.19 or >=22.12, not ${process.version}`);
  }
  const dropIn = require("./drop-in/index.js");
  const { sharedHost } = require("./drop-in/shared-host.js");
  return sharedHost().mode === "helper" ? dropIn : nodeChildProcess;
}

// What stands in for Node's function `original` until the first call: its name, its
// length and (exec, execFile) a promisified form, each forwarding to the chosen one.
function standIn(name, original, choose) {
  const forward = {
    [original.name](...args) {
      return choose()[name].apply(this, args);
    },
  }[original.name];
  Object.defineProperty(forward, "length", { value: original.length });
  Object.defineProperty(forward, NODE_FUNCTION, { value: original });
  if (typeof original[PROMISIFY_CUSTOM] === "function") {
    Object.defineProperty(forward, PROMISIFY_CUSTOM, {
      value: function (...args) {
        return choose()[name][PROMISIFY_CUSTOM].apply(this, args);
      },
    });
  }
  return forward;
}

// Node children would inherit the flag through process.execArgv (fork's default) and
// NODE_OPTIONS, and fail to start wherever spawnhost does not resolve. They get it only
// when asked: SPAWNHOST_REGISTER_CHILDREN=1, or the flag in their own execArgv/env.
if (process.env.SPAWNHOST_REGISTER_CHILDREN !== "1") {
  const execArgv = withoutRegisterFlag(process.execArgv);
  let removed = execArgv.length !== process.execArgv.length;
  process.execArgv = execArgv;
  if (process.env.NODE_OPTIONS?.includes(SPECIFIER)) {
    const kept = withoutRegisterFlag(process.env.NODE_OPTIONS.split(/\s+/).filter(Boolean));
    removed = true;
    if (kept.length > 0) process.env.NODE_OPTIONS = kept.join(" ");
    else delete process.env.NODE_OPTIONS;
  }
  if (removed) keepFlagForWorkers();
}

// Worker threads are this process, not children: they keep the flag. One started with
// its own execArgv or env (test runners pass copies of process.execArgv and
// process.env, from which the flag was just taken) would run without it, so such a
// Worker gets `--import spawnhost/register` added to its execArgv.
function keepFlagForWorkers() {
  const workerThreads = createRequire(import.meta.url)("node:worker_threads");
  const NodeWorker = workerThreads.Worker;
  const { SHARE_ENV } = workerThreads;
  const ownFlags = process.execArgv;
  class Worker extends NodeWorker {
    constructor(filename, options) {
      super(filename, withFlag(options));
    }
  }
  function withFlag(options) {
    if (options === null || typeof options !== "object") return options;
    const ownEnv = options.env != null && options.env !== SHARE_ENV;
    if (options.execArgv === undefined && !ownEnv) return options; // inherits the flag
    // Not an array: Node's own validation reports it.
    if (options.execArgv !== undefined && !Array.isArray(options.execArgv)) return options;
    const execArgv = options.execArgv ?? ownFlags;
    if (withoutRegisterFlag(execArgv).length !== execArgv.length) return options;
    return { ...options, execArgv: [...execArgv, "--import", SPECIFIER] };
  }
  workerThreads.Worker = Worker;
  syncBuiltinESMExports();
}

/** Removes `--import spawnhost/register` (either spelling) from a list of Node flags. */
function withoutRegisterFlag(flags) {
  const kept = [];
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === `--import=${SPECIFIER}`) continue;
    if (flags[i] === "--import" && flags[i + 1] === SPECIFIER) {
      i++;
      continue;
    }
    kept.push(flags[i]);
  }
  return kept;
}
