// spawnhost/register: `node --import spawnhost/register app.js` (or NODE_OPTIONS, or
// `import "spawnhost/register"` first in an entry file) sends every launch the whole
// process makes through node:child_process to the spawnhost helper. It swaps the
// builtin module's functions for spawnhost/child_process's and re-syncs the builtin's
// ESM named exports, so `require("child_process")`, default and named imports, and
// libraries in node_modules all reach the helper.
import { createRequire, syncBuiltinESMExports } from "node:module";
import * as dropIn from "./drop-in/index.js";
import { builtinModule, sharedHost } from "./drop-in/shared-host.js";

const REPLACED = ["spawn", "exec", "execFile", "fork", "spawnSync", "execSync", "execFileSync"];
const SPECIFIER = "spawnhost/register";

// Where no helper fits, the host runs inline and has already warned once
// (SPAWNHOST_INLINE_FALLBACK); node:child_process then stays exactly as it is.
if (sharedHost().mode === "helper" && builtinModule.spawn !== dropIn.spawn) {
  for (const name of REPLACED) builtinModule[name] = dropIn[name];
  syncBuiltinESMExports();
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
