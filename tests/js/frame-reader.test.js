// FrameReader passes large data frames on in pieces as their bytes arrive, as views of
// the reads that carried them. These tests hold it to the same messages a whole-frame
// decode gives, however the bytes are split, and to the same errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FrameReader, encodeFrame } from "../../js/src/protocol/frames.js";
import { ProtocolError } from "../../js/src/core/errors.js";

const payload = (size) => Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + 7) & 0xff));

// Feeds `bytes` in reads of `sizes` (cycled) and returns every message.
function readInPieces(bytes, sizes, receiver = "to_node") {
  const reader = new FrameReader(receiver);
  const messages = [];
  const reads = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const read = Buffer.from(bytes.subarray(at, at + sizes[i % sizes.length]));
    reads.push(read);
    messages.push(...reader.push(read));
    at += read.length;
  }
  reader.end();
  return { messages, reads };
}

// Joins consecutive data pieces of the same stream back into one message per frame run.
function joined(messages) {
  const out = [];
  for (const m of messages) {
    const last = out.at(-1);
    if (m.name === "data" && last?.name === "data" && last.values[0] === m.values[0] && last.values[1] === m.values[1]) {
      last.values[2] = Buffer.concat([last.values[2], m.values[2]]);
    } else {
      out.push({ name: m.name, values: m.name === "data" ? [m.values[0], m.values[1], Buffer.from(m.values[2])] : m.values });
    }
  }
  return out;
}

test("a 200 KiB data frame read 64 KiB at a time arrives whole, in pieces that are views of the reads", () => {
  const bytes = payload(200 * 1024);
  const id = 2 ** 40 + 3;
  const { messages, reads } = readInPieces(encodeFrame("data", [id, 2, bytes]), [64 * 1024]);
  assert.ok(messages.length >= 4, `expected one piece per read, got ${messages.length}`);
  for (const m of messages) {
    assert.equal(m.name, "data");
    assert.deepEqual(m.values.slice(0, 2), [id, 2]);
  }
  assert.deepEqual(Buffer.concat(messages.map((m) => m.values[2])), bytes);
  const readBuffers = new Set(reads.map((r) => r.buffer));
  assert.ok(messages.every((m) => readBuffers.has(m.values[2].buffer)), "every piece must be a view, not a copy");
});

test("every split of a data frame's head gives the same bytes", () => {
  const bytes = payload(20 * 1024);
  const frame = encodeFrame("data", [300, 1, bytes]);
  for (let first = 1; first <= 24; first++) {
    const { messages } = readInPieces(frame, [first, 1, 7, 4096]);
    assert.deepEqual(joined(messages), [{ name: "data", values: [300, 1, bytes] }], `first read of ${first} bytes`);
  }
});

test("streamed data frames interleaved with small frames keep their order", () => {
  const a = payload(40 * 1024);
  const b = payload(90 * 1024).reverse();
  const stream = Buffer.concat([
    encodeFrame("data", [5, 1, a]),
    encodeFrame("written", [5, 10]),
    encodeFrame("data", [6, 3, b]),
    encodeFrame("eof", [6, 3]),
  ]);
  for (const sizes of [[65536], [1000, 50000], [stream.length]]) {
    const { messages } = readInPieces(stream, sizes);
    assert.deepEqual(joined(messages), [
      { name: "data", values: [5, 1, a] },
      { name: "written", values: [5, 10] },
      { name: "data", values: [6, 3, b] },
      { name: "eof", values: [6, 3] },
    ], `reads of ${sizes}`);
  }
});

test("a large frame with a bad head is not streamed: it fails as a whole frame does", () => {
  const frame = encodeFrame("data", [9, 1, payload(64 * 1024)]);
  frame[4 + 3] = 4; // fd 4 is not one of 1, 2, 3
  const reader = new FrameReader("to_node");
  assert.deepEqual(reader.push(frame.subarray(0, 30000)), [], "nothing may be passed on before the frame is checked");
  assert.throws(() => reader.push(frame.subarray(30000)), (error) => error instanceof ProtocolError && error.category === "bad_field");
});

test("a stream that ends inside a streamed data frame is truncated", () => {
  const frame = encodeFrame("data", [9, 1, payload(64 * 1024)]);
  const reader = new FrameReader("to_node");
  const messages = reader.push(frame.subarray(0, 40000));
  assert.equal(messages.length, 1, "the bytes that came are passed on");
  assert.throws(() => reader.end(), (error) => error instanceof ProtocolError && error.category === "truncated");
});

test("frames to the helper are never streamed: a large write arrives as one message", () => {
  const bytes = payload(100 * 1024);
  const { messages } = readInPieces(encodeFrame("write", [4, bytes]), [65536], "to_helper");
  assert.equal(messages.length, 1);
  assert.deepEqual(Buffer.from(messages[0].values[1]), bytes);
});
