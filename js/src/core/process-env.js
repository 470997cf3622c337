// process.env as the KEY=VALUE list a launch without `env` sends, read as cheaply as
// exactness allows. Reading process.env is the biggest single cost of a launch on
// Node's thread (every key and value is a call into C++: ~25 µs for 37 variables),
// so two things are kept between launches:
// - the last list: when a fresh read equals it, the same array is returned, and the
//   spawn frame encoder reuses that array's MessagePack bytes (protocol/spawn-frame.js);
// - with trackEnv (a host option, off by default), no read at all while JavaScript
//   has not written to process.env since the last one: process.env is replaced by a
//   transparent Proxy that counts writes. Changes made outside JavaScript (a native
//   addon's setenv, a worker thread started with env: SHARE_ENV) are not seen; that
//   is why it is an option (docs/performance.md).

// The object Node made: its keys and values are C strings underneath (Node cuts a
// value at its first NUL byte), so there is nothing to check. Code that replaced
// process.env with an object of its own (some test runners do) gets what this Node
// version's child_process gives it.
const nodeEnv = process.env;
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
let lastKeys = [];
let lastValues = [];
let lastPairs = Object.freeze([]);

/**
 * process.env now, exactly, as KEY=VALUE strings; the previous array when nothing changed.
 * @returns {string[]}
 */
export function readProcessEnv() {
  let env = process.env;
  if (env !== nodeEnv && env !== tracking?.proxy) {
    // Replaced by code of its own: child_process's reading of that changed across versions.
    if (NODE_MAJOR < 22) return objectEnvPairs(env); // every enumerable key, inherited too
    if (NODE_MAJOR < 26) return objectEnvPairs({ ...env }); // own keys only
    env = nodeEnv; // Node 26 reads its own environment, whatever process.env now is
  }
  // The cheapest exact read: own names (process.env has only enumerable ones, and no
  // per-key attribute query is made for them), then one getter call per name.
  const keys = Object.getOwnPropertyNames(env);
  const values = new Array(keys.length);
  let same = keys.length === lastKeys.length;
  for (let i = 0; i < keys.length; i++) {
    values[i] = env[keys[i]];
    if (same && (keys[i] !== lastKeys[i] || values[i] !== lastValues[i])) same = false;
  }
  if (!same) {
    lastKeys = keys;
    lastValues = values;
    // Frozen: protocol/spawn-frame.js reuses an array's encoding for as long as it is the same array.
    lastPairs = Object.freeze(keys.map((key, i) => `${key}=${values[i]}`));
  }
  return lastPairs;
}

/**
 * An env object as child_process reads it: inherited keys included, undefined values
 * left out, other values as strings. No NUL check: the caller checks what it needs to.
 * @returns {string[]}
 */
export function objectEnvPairs(env) {
  const pairs = [];
  for (const key in env) {
    const value = env[key];
    if (value !== undefined) pairs.push(`${key}=${value}`);
  }
  return pairs;
}

/**
 * The KEY=VALUE pairs child_process adds to a launch without `env` for the enumerable
 * properties process.env inherits (from Object.prototype, where code or prototype
 * pollution put them): Node 20 to 25 read process.env with for..in, which lists them
 * after its own keys, and so does spawnhost; Node 26 reads its own environment block.
 * Empty, at the cost of one for..in over an empty prototype chain, when nothing is there.
 * A value is made a string as Node makes it (a template literal); a string with a NUL
 * byte is the caller's to refuse.
 * @returns {string[]}
 */
export function inheritedProcessEnvPairs() {
  const env = process.env;
  // A replaced process.env is read whole by readProcessEnv (objectEnvPairs).
  if (NODE_MAJOR >= 26 || (env !== nodeEnv && env !== tracking?.proxy)) return [];
  let pairs = null;
  for (const key in Object.getPrototypeOf(nodeEnv)) {
    if (Object.hasOwn(nodeEnv, key)) continue;
    const value = env[key];
    if (value !== undefined) (pairs ??= []).push(`${key}=${value}`);
  }
  return pairs ?? [];
}

let tracking = null;

/**
 * Where to set a variable for a moment, within one call that restores it before any
 * launch reads process.env (Windows stream pipes' NODE_PENDING_PIPE_INSTANCES): under
 * trackEnv's Proxy, the object beneath it, so that the write does not count as a change
 * and make every next launch read process.env again; else process.env, whatever it is.
 * @returns {NodeJS.ProcessEnv}
 */
export function envForMomentaryWrites() {
  return tracking && process.env === tracking.proxy ? nodeEnv : process.env;
}

/**
 * process.env as readProcessEnv gives it, re-read only after JavaScript wrote to it
 * (trackEnv). The first call installs the tracking Proxy.
 * @returns {string[]}
 */
export function trackedProcessEnv() {
  if (!tracking && process.env === nodeEnv) tracking = installTracking();
  // process.env was replaced (by an object of someone's own) after or before: read it.
  if (!tracking || process.env !== tracking.proxy) return readProcessEnv();
  if (tracking.readAt !== tracking.writes) {
    tracking.readAt = tracking.writes;
    tracking.pairs = readProcessEnv();
  }
  return tracking.pairs;
}

// Every way JavaScript changes an object goes through one of these traps; reads go
// straight to the real process.env, which keeps its own rules (values become strings).
function installTracking() {
  const state = { writes: 1, readAt: 0, pairs: [], proxy: null };
  const real = process.env;
  const wrote = (result) => {
    state.writes++;
    return result;
  };
  state.proxy = process.env = new Proxy(real, {
    set: (target, key, value) => wrote(Reflect.set(target, key, value)),
    deleteProperty: (target, key) => wrote(Reflect.deleteProperty(target, key)),
    defineProperty: (target, key, descriptor) => wrote(Reflect.defineProperty(target, key, descriptor)),
  });
  // process.loadEnvFile() sets variables from C++: count it as a write too.
  const { loadEnvFile } = process;
  if (typeof loadEnvFile === "function") {
    process.loadEnvFile = function (...args) {
      try {
        return Reflect.apply(loadEnvFile, this, args);
      } finally {
        state.writes++;
      }
    };
  }
  return state;
}
