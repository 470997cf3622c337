// The spawn frame of a launch that repeats the one before it but for its id: a loop
// running one command (a benchmark's loop, a build tool's compiler calls) sends the
// same file, arguments, cwd and environment each time. Such a frame is the last one with
// the id's bytes swapped; only comparing the fields is left, which costs less than
// encoding them (bench/start-call.mjs). The environment is compared by identity,
// as protocol/spawn-frame.js reuses its bytes: core/process-env.js returns the same
// frozen array while process.env is unchanged, and a user's `env` is a new array each
// time, so never taken for the last one. Every other option value is a primitive or an
// array of primitives (spawn-request.js), compared element by element, in key order, as
// the encoder writes them.
import { MSG, MAX_BODY_BYTES } from "./generated.js";
import { ProtocolError } from "../core/errors.js";

const FIXARRAY_5 = 0x95;

/** @type {{ file: string, args: string[], keys: string[], values: unknown[], env: unknown, tail: Buffer } | null} */
let last = null;

/** The frame of this launch from the last one's bytes, or null when it is not the same launch. */
export function repeatedSpawnFrame(id, file, args, options) {
  if (last === null || file !== last.file || options.env !== last.env || !sameStrings(args, last.args)) return null;
  const keys = Object.keys(options);
  if (keys.length !== last.keys.length) return null;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== last.keys[i]) return null;
    const value = options[keys[i]];
    const before = last.values[i];
    if (value !== before && !(Array.isArray(value) && Array.isArray(before) && sameStrings(value, before))) return null;
  }
  const idLength = uintLength(id);
  const bodyLength = 2 + idLength + last.tail.length;
  if (bodyLength > MAX_BODY_BYTES) {
    throw new ProtocolError("oversized", `a spawn frame of ${bodyLength} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);
  }
  const frame = Buffer.allocUnsafe(4 + bodyLength);
  frame.writeUInt32LE(bodyLength, 0);
  frame[4] = FIXARRAY_5;
  frame[5] = MSG.spawn;
  writeUint(frame, 6, id, idLength);
  frame.set(last.tail, 6 + idLength);
  return frame;
}

/** Keeps what follows the id in `frame`, the spawn frame just encoded for these fields. */
export function rememberSpawnFrame(id, file, args, options, frame) {
  // [spawn, id, file, args, options] with a one-byte header and code, as encodeFrame writes it.
  if (frame[4] !== FIXARRAY_5 || frame[5] !== MSG.spawn || !Number.isSafeInteger(id) || id < 0 || id > 0xffffffff) {
    last = null;
    return;
  }
  const keys = Object.keys(options);
  // Only values compared by content: a primitive, or an array of primitives (env by identity).
  if (!keys.every((key) => key === "env" || isPlain(options[key]))) {
    last = null;
    return;
  }
  last = {
    file,
    args: args.slice(),
    keys,
    // Arrays copied: a caller may change its own after the call.
    values: keys.map((key) => (Array.isArray(options[key]) && key !== "env" ? options[key].slice() : options[key])),
    env: options.env,
    tail: Buffer.from(frame.subarray(6 + uintLength(id))),
  };
}

function isPlain(value) {
  if (Array.isArray(value)) return value.every((item) => item === null || typeof item !== "object");
  return value === null || (typeof value !== "object" && typeof value !== "function");
}

function sameStrings(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// MessagePack's shortest unsigned form, as the encoder picks it.
function uintLength(n) {
  if (n < 0x80) return 1;
  if (n < 0x100) return 2;
  if (n < 0x10000) return 3;
  return 5;
}

function writeUint(frame, at, n, length) {
  if (length === 1) frame[at] = n;
  else if (length === 2) { frame[at] = 0xcc; frame[at + 1] = n; }
  else if (length === 3) { frame[at] = 0xcd; frame.writeUInt16BE(n, at + 1); }
  else { frame[at] = 0xce; frame.writeUInt32BE(n, at + 1); }
}
