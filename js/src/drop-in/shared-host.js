// The drop-in face's shared state: node:child_process's own functions (captured before
// register.js replaces them), the one default ProcessHost every drop-in call uses, its
// options (configure() or SPAWNHOST_OPTIONS), and the launch counts stats() reports.
import { ProcessHost } from "../host/host.js";

// Node's own functions, for the drop-in's rooms: core/node-child-process.js.
export { nodeChildProcess } from "../core/node-child-process.js";

const HOST_OPTION_NAMES = ["maxLaunchThreads", "killGraceMs", "helperPath", "fallback", "helperTimeoutMs"];

let hostOptions = null;
/** @type {ProcessHost|null} */
let host = null;
const counts = { helper: 0, fallback: 0, reasons: new Map() };

/**
 * Sets the options of the shared host behind spawnhost/child_process. Calls already
 * running keep their host; the next call starts one with these options.
 * @param {{ maxLaunchThreads?: number, killGraceMs?: number, helperPath?: string,
 *   fallback?: "inline"|"error", helperTimeoutMs?: number }} options
 */
export function configure(options) {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`configure() takes an options object; received ${options === null ? "null" : typeof options}`);
  }
  for (const name of Object.keys(options)) {
    if (!HOST_OPTION_NAMES.includes(name)) {
      throw new TypeError(`configure(): unknown option "${name}"; known: ${HOST_OPTION_NAMES.join(", ")}`);
    }
  }
  // Validated by the host itself, now rather than at the next launch.
  const next = new ProcessHost({ ...options });
  hostOptions = { ...options };
  host = next;
}

/**
 * The shared host, created on first use from configure()'s options or, before any
 * configure(), from the JSON object in SPAWNHOST_OPTIONS. It starts its helper on the
 * first launch and never keeps Node alive while idle.
 * @returns {ProcessHost}
 */
export function sharedHost() {
  host ??= new ProcessHost(hostOptions ?? optionsFromEnvironment());
  return host;
}

function optionsFromEnvironment() {
  const text = process.env.SPAWNHOST_OPTIONS;
  if (!text) return {};
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`SPAWNHOST_OPTIONS must hold a JSON object of ProcessHost options: ${error.message}`);
  }
  const options = {};
  for (const name of HOST_OPTION_NAMES) if (parsed != null && Object.hasOwn(parsed, name) && parsed[name] !== undefined) options[name] = parsed[name];
  return options;
}

/** One launch that went through the helper. */
export function countHelperLaunch() {
  counts.helper++;
}

/**
 * One launch node:child_process ran instead of the helper.
 * @param {string} reason why, in a few words ("stdio[3] is a Stream", ...)
 */
export function countFallback(reason) {
  counts.fallback++;
  counts.reasons.set(reason, (counts.reasons.get(reason) ?? 0) + 1);
}

/**
 * How the drop-in face's launches went: through the helper, or to node:child_process
 * (with each reason and how often it applied). Calls that threw a validation error
 * launched nothing and are not counted.
 * @returns {{ helper: number, fallback: number, fallbackReasons: Record<string, number>, mode: "helper"|"inline"|"not started" }}
 */
export function stats() {
  return {
    helper: counts.helper,
    fallback: counts.fallback,
    fallbackReasons: Object.fromEntries(counts.reasons),
    mode: host ? host.mode : "not started",
  };
}
