// The spawn frame, encoded with its environment's MessagePack bytes reused while the
// environment is the same array (core/process-env.js returns the same array while
// process.env is unchanged): a launch then encodes only its own few fields. The
// result is the frame encodeFrame would give for the same options with `env` as the
// map's last key (tests/js/spawn-frame.test.js holds it to that, byte for byte).
// A launch the same as the one before but for its id (a loop running one command) does
// not even encode those: everything after the id is the last frame's (spawn-frame-repeat.js).
import { Encoder } from "@msgpack/msgpack";
import { MSG, MAX_BODY_BYTES } from "./generated.js";
import { encodeFrame } from "./frames.js";
import { spawnRequestOptions } from "./spawn-request.js";
import { ProtocolError } from "../core/errors.js";
import { repeatedSpawnFrame, rememberSpawnFrame } from "./spawn-frame-repeat.js";

const encoder = new Encoder({ ignoreUndefined: true });
const ENV_KEY = Buffer.from([0xa3, 0x65, 0x6e, 0x76]); // fixstr "env"
const FIXARRAY_4 = 0x94;
const FIXMAP = 0x80;
const FIXMAP_MAX = 0x8f;

let cachedEnv = null;
let cachedEnvBytes = null;

/**
 * Encodes `spawn [16, id, file, args, options]` as a complete frame.
 * @param {number} id
 * @param {string} file
 * @param {string[]} args
 * @param {Record<string, unknown>} options spawn options; `env` an array of KEY=VALUE
 * @returns {Buffer}
 */
export function encodeSpawnFrame(id, file, args, options) {
  const repeated = repeatedSpawnFrame(id, file, args, options);
  if (repeated !== null) return repeated;
  const frame = encodeFreshSpawnFrame(id, file, args, options);
  rememberSpawnFrame(id, file, args, options, frame);
  return frame;
}

function encodeFreshSpawnFrame(id, file, args, options) {
  const { env } = options;
  if (!Array.isArray(env)) return encodeFrame("spawn", [id, file, args, options]);
  if (env !== cachedEnv) {
    cachedEnvBytes = Buffer.from(encoder.encode(env));
    cachedEnv = env;
  }
  const envBytes = cachedEnvBytes;
  // [code, id, file, args] as an array of 4; made an array of 5 below, options last.
  const head = Buffer.from(encoder.encodeSharedRef([MSG.spawn, id, file, args]));
  options.env = undefined; // skipped by the encoder (ignoreUndefined), added after
  let map;
  try {
    map = encoder.encodeSharedRef(options);
  } finally {
    options.env = env;
  }
  // Both headers are one byte (fewer than 15 keys): anything else takes the plain path.
  if (head[0] !== FIXARRAY_4 || map[0] < FIXMAP || map[0] >= FIXMAP_MAX) return encodeFrame("spawn", [id, file, args, options]);
  const bodyLength = head.length + map.length + ENV_KEY.length + envBytes.length;
  if (bodyLength > MAX_BODY_BYTES) {
    throw new ProtocolError("oversized", `a spawn frame of ${bodyLength} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);
  }
  const frame = Buffer.allocUnsafe(4 + bodyLength);
  frame.writeUInt32LE(bodyLength, 0);
  let at = 4;
  frame.set(head, at);
  frame[at] = FIXARRAY_4 + 1;
  at += head.length;
  frame.set(map, at);
  frame[at] = map[0] + 1; // one more key: env
  at += map.length;
  frame.set(ENV_KEY, at);
  frame.set(envBytes, at + ENV_KEY.length);
  return frame;
}

/**
 * The spawn frame of launch `id` for a request of core/options.js: its options as
 * spawnRequestOptions gives them, with `extra` (the child streams', execFile's result
 * hold) on top.
 */
export function encodeRequestFrame(id, request, extra) {
  return encodeSpawnFrame(id, request.spawnfile, request.spawnargs.slice(1), Object.assign(spawnRequestOptions(request), extra));
}
