// The wire codec: frames are a u32 little-endian body length followed by one
// MessagePack array `[code, ...fields]` (schema/README.md). Every rule checked here
// comes from the generated constants, so the codec cannot drift from the schema.
// Decoding errors carry the same category names as schema/vectors.json.
import { Decoder, Encoder } from "@msgpack/msgpack";
import {
  MSG, FIELDS, FIELD_TYPES, FIELD_VALUES, DIRECTION, SPAWN_OPTION_TYPES, STDIO_KIND, MAX_BODY_BYTES,
} from "./generated.js";
import { ProtocolError } from "../core/errors.js";

const NAME_BY_CODE = new Map(Object.entries(MSG).map(([name, code]) => [code, name]));
const STDIO_KINDS = new Set(Object.values(STDIO_KIND));
const encoder = new Encoder({ ignoreUndefined: true });
// One decoder for every frame: msgpack's decode() builds a new Decoder per call, the
// larger part of a reply's allocations (a Decoder is safe to reuse, and re-entered it
// clones itself).
const decoder = new Decoder({ useBigInt64: false });

/**
 * Encodes one message as a complete frame.
 * @param {string} name message name from the schema
 * @param {unknown[]} fields field values in wire order
 * @returns {Buffer}
 */
export function encodeFrame(name, fields) {
  const code = MSG[name];
  if (code === undefined) throw new ProtocolError("unknown_message", `unknown message "${name}"`);
  // A view of the encoder's own buffer, copied into the frame at once: one copy, not two.
  const body = encoder.encodeSharedRef([code, ...fields]);
  if (body.length > MAX_BODY_BYTES) {
    throw new ProtocolError("oversized", `a ${name} frame of ${body.length} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);
  }
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32LE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

/**
 * The head of a `[code, id, bytes]` frame (write, send) whose payload is written
 * after it as it is: a large stdin write costs no copy and no new buffer in Node.
 * id as uint32 and the payload as bin32: valid MessagePack, if not the shortest form.
 * @param {"write"|"send"} name
 * @param {number} id
 * @param {number} length payload bytes
 * @returns {Buffer} 16 bytes: frame length, array header, code, id, bin header
 */
export function encodeBytesHead(name, id, length) {
  const bodyLength = 12 + length;
  if (bodyLength > MAX_BODY_BYTES) {
    throw new ProtocolError("oversized", `a ${name} frame of ${bodyLength} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);
  }
  const head = Buffer.allocUnsafe(16);
  head.writeUInt32LE(bodyLength, 0);
  head[4] = 0x93; // array of 3
  head[5] = BYTES_MESSAGE_CODES[name]; // positive fixint
  head[6] = 0xce; // uint32
  head.writeUInt32BE(id, 7);
  head[11] = 0xc6; // bin32
  head.writeUInt32BE(length, 12);
  return head;
}

// The messages encodeBytesHead may frame: exactly [id: uint, bytes: bin] in the schema.
const BYTES_MESSAGE_CODES = Object.fromEntries(["write", "send"].map((name) => {
  if (FIELD_TYPES[name].join() !== "uint,bin" || MSG[name] > 127) throw new Error(`${name} is not an [id, bytes] message`);
  return [name, MSG[name]];
}));

/**
 * Decodes and validates one frame body.
 * @param {Uint8Array} body
 * @param {"to_node"|"to_helper"} receiver which side is reading: a message meant for
 *   the other side is an unknown message here.
 * @returns {{ name: string, values: unknown[] }} values are the fields in wire order.
 */
export function decodeBody(body, receiver) {
  let value;
  try {
    value = decoder.decode(body);
  } catch (cause) {
    throw new ProtocolError("not_msgpack", `frame body is not one MessagePack value: ${cause.message}`);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw new ProtocolError("not_array", "frame body is not a non-empty array");
  }
  // The fields in wire order: the array itself, its code taken off (no copy per frame).
  const code = value.shift();
  const values = value;
  const name = NAME_BY_CODE.get(code);
  if (name === undefined || DIRECTION[name] !== receiver) {
    throw new ProtocolError("unknown_message", `unknown message code ${JSON.stringify(code)} for ${receiver}`);
  }
  const types = FIELD_TYPES[name];
  if (values.length !== types.length) {
    throw new ProtocolError("wrong_size", `${name} has ${values.length} fields, expected ${types.length}`);
  }
  for (let i = 0; i < types.length; i++) {
    const field = FIELDS[name][i];
    if (!matchesType(values[i], types[i]) || (field === "id" && values[i] === 0)) {
      throw new ProtocolError("bad_field", `${name}.${field} is not a valid ${types[i]}${field === "id" ? " (ids are never 0)" : ""}`);
    }
    const allowed = FIELD_VALUES[name]?.[field];
    if (allowed && !allowed.includes(values[i])) {
      throw new ProtocolError("bad_field", `${name}.${field} must be one of ${allowed.join(", ")}`);
    }
  }
  if (name === "spawn") checkSpawnOptions(values[3]);
  return { name, values };
}

function checkSpawnOptions(options) {
  for (const [key, optionValue] of Object.entries(options)) {
    const type = SPAWN_OPTION_TYPES[key];
    if (type === undefined) throw new ProtocolError("bad_option", `unknown spawn option "${key}"`);
    if (!matchesType(optionValue, type)) throw new ProtocolError("bad_option", `spawn option "${key}" is not a ${type}`);
    if (key === "stdio" && (optionValue.length !== 3 || !optionValue.every((k) => STDIO_KINDS.has(k)))) {
      throw new ProtocolError("bad_option", "spawn option \"stdio\" must hold three stdio kinds");
    }
  }
}

const isUint = (v) => Number.isSafeInteger(v) && v >= 0;
const TYPE_CHECKS = {
  uint: isUint,
  int: (v) => Number.isSafeInteger(v),
  str: (v) => typeof v === "string",
  bin: (v) => v instanceof Uint8Array,
  bool: (v) => typeof v === "boolean",
  map: (v) => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array),
  "str[]": (v) => Array.isArray(v) && v.every((s) => typeof s === "string"),
  "uint[]": (v) => Array.isArray(v) && v.every(isUint),
};

function matchesType(value, type) {
  if (type.endsWith("?")) return value === null || TYPE_CHECKS[type.slice(0, -1)](value);
  return TYPE_CHECKS[type](value);
}

// A data frame at least this large is passed on in pieces as its bytes arrive, not
// assembled first: Node reads 64 KiB at a time, so assembling a 256 KiB frame would
// copy every byte of a fast output stream once more.
const STREAM_DATA_MIN = 16 * 1024;
// The longest data head: array, code, uint64 id, fixint fd, bin32 length.
const MAX_DATA_HEAD = 1 + 1 + 9 + 1 + 5;

/**
 * Splits a byte stream into validated messages. Frames may arrive split across reads
 * or several to a read; bodies are copied only once they are complete, except large
 * data frames, whose payload is passed on as views of the reads that carried it: one
 * frame may then yield several `data` messages for consecutive pieces of its bytes.
 */
export class FrameReader {
  #chunks = [];
  #buffered = 0;
  #receiver;
  /** @type {{ id: number, fd: number, remaining: number } | null} the data frame being passed on */
  #streaming = null;

  /** @param {"to_node"|"to_helper"} receiver */
  constructor(receiver) {
    this.#receiver = receiver;
  }

  /**
   * Adds bytes and returns every message they complete. Throws a ProtocolError on a
   * bad frame; the stream cannot be trusted after that.
   * @param {Uint8Array} chunk
   * @returns {{ name: string, values: unknown[] }[]}
   */
  push(chunk) {
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const messages = [];
    for (;;) {
      if (this.#streaming !== null) {
        if (this.#buffered === 0) break;
        const piece = this.#takeUpTo(this.#streaming.remaining);
        messages.push({ name: "data", values: [this.#streaming.id, this.#streaming.fd, piece] });
        this.#streaming.remaining -= piece.length;
        if (this.#streaming.remaining === 0) this.#streaming = null;
        continue;
      }
      if (this.#buffered < 4) break;
      const length = this.#peekLength();
      if (length > MAX_BODY_BYTES) {
        throw new ProtocolError("oversized", `frame of ${length} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`);
      }
      if (this.#buffered >= 4 + length) {
        const frame = this.#take(4 + length);
        messages.push(decodeBody(frame.subarray(4), this.#receiver));
        continue;
      }
      if (length < STREAM_DATA_MIN || !this.#startStreaming(length)) break;
    }
    return messages;
  }

  /** Call at end of stream: leftover bytes are a truncated frame. */
  end() {
    if (this.#buffered > 0 || this.#streaming !== null) {
      const left = this.#buffered + (this.#streaming?.remaining ?? 0);
      throw new ProtocolError("truncated", `stream ended inside a frame (${left} bytes missing or left over)`);
    }
  }

  // Enters streaming for an incomplete frame of `length` body bytes when its head is a
  // well-formed data head whose bin payload ends the frame exactly. Anything else waits
  // for the whole frame, so decodeBody checks it (and names its error) as usual.
  #startStreaming(length) {
    if (this.#receiver !== "to_node" || this.#buffered < 4 + MAX_DATA_HEAD) return false;
    const head = this.#peek(4 + MAX_DATA_HEAD).subarray(4);
    const parsed = parseDataHead(head);
    if (parsed === null || parsed.headLength + parsed.payloadLength !== length) return false;
    this.#take(4 + parsed.headLength);
    this.#streaming = { id: parsed.id, fd: parsed.fd, remaining: parsed.payloadLength };
    return true;
  }

  #peekLength() {
    const first = this.#peek(4);
    return (first[0] | (first[1] << 8) | (first[2] << 16)) + first[3] * 0x1000000;
  }

  // At least n bytes from the front, without consuming them (n <= buffered).
  #peek(n) {
    if (this.#chunks[0].length < n) {
      let count = 0;
      for (let have = 0; have < n; count++) have += this.#chunks[count].length;
      this.#chunks.splice(0, count, Buffer.concat(this.#chunks.slice(0, count)));
    }
    return this.#chunks[0];
  }

  // Up to n bytes, from the first chunk only: always a view, never a copy.
  #takeUpTo(n) {
    const first = this.#chunks[0];
    if (first.length <= n) {
      this.#chunks.shift();
      this.#buffered -= first.length;
      return first;
    }
    this.#chunks[0] = first.subarray(n);
    this.#buffered -= n;
    return first.subarray(0, n);
  }

  // Takes the next n bytes: a view when one chunk holds them, else one copy of just
  // those bytes (copying everything buffered per frame was the main cost of a fast
  // output stream).
  #take(n) {
    this.#buffered -= n;
    const first = this.#chunks[0];
    if (first.length >= n) {
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
      return first.subarray(0, n);
    }
    const frame = Buffer.allocUnsafe(n);
    for (let offset = 0; offset < n;) {
      const chunk = this.#chunks[0];
      const k = Math.min(chunk.length, n - offset);
      frame.set(k === chunk.length ? chunk : chunk.subarray(0, k), offset);
      offset += k;
      if (k === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(k);
    }
    return frame;
  }
}

/**
 * Reads the head of a data message, `[4, id, fd, bin]`, up to its payload.
 * @param {Uint8Array} b at least MAX_DATA_HEAD bytes
 * @returns {{ id: number, fd: number, headLength: number, payloadLength: number } | null}
 *   null when it is not exactly such a head with a valid id and fd
 */
function parseDataHead(b) {
  if (b[0] !== 0x94 || b[1] !== MSG.data) return null;
  let at = 2;
  let id;
  const tag = b[at];
  if (tag <= 0x7f) { id = tag; at += 1; }
  else if (tag === 0xcc) { id = b[at + 1]; at += 2; }
  else if (tag === 0xcd) { id = (b[at + 1] << 8) | b[at + 2]; at += 3; }
  else if (tag === 0xce) { id = readU32(b, at + 1); at += 5; }
  else if (tag === 0xcf) { id = readU32(b, at + 1) * 0x100000000 + readU32(b, at + 5); at += 9; }
  else return null;
  if (id === 0 || !Number.isSafeInteger(id)) return null;
  const fd = b[at];
  if (!FIELD_VALUES.data.fd.includes(fd)) return null; // positive fixints 1-3 only
  at += 1;
  let payloadLength;
  if (b[at] === 0xc4) { payloadLength = b[at + 1]; at += 2; }
  else if (b[at] === 0xc5) { payloadLength = (b[at + 1] << 8) | b[at + 2]; at += 3; }
  else if (b[at] === 0xc6) { payloadLength = readU32(b, at + 1); at += 5; }
  else return null;
  return { id, fd, headLength: at, payloadLength };
}

const readU32 = (b, at) => b[at] * 0x1000000 + ((b[at + 1] << 16) | (b[at + 2] << 8) | b[at + 3]);

/**
 * Decodes bytes that must hold exactly one frame (used by the vector replays).
 * @param {Uint8Array} bytes
 * @param {"to_node"|"to_helper"} receiver
 */
export function decodeOneFrame(bytes, receiver) {
  const reader = new FrameReader(receiver);
  const messages = reader.push(bytes);
  reader.end();
  if (messages.length !== 1) throw new ProtocolError("truncated", `expected one frame, found ${messages.length}`);
  return messages[0];
}
