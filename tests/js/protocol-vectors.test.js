// Replays schema/vectors.json through the JS codec. Valid vectors are decoded as their
// receiver would decode them and must re-encode to the same bytes. Invalid vectors are
// all frames sent to the helper, so they are decoded from the helper's side.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decodeOneFrame, encodeFrame } from "../../js/src/protocol/frames.js";
import { DIRECTION, MSG } from "../../js/src/protocol/generated.js";
import { ProtocolError } from "../../js/src/core/errors.js";

const { vectors } = JSON.parse(readFileSync(new URL("../../schema/vectors.json", import.meta.url), "utf8"));
const NAME_BY_CODE = new Map(Object.entries(MSG).map(([name, code]) => [code, name]));

// vectors.json writes bin as {"$bin": hex}; the codec gives Uint8Array.
const toWire = (v) => Array.isArray(v) ? v.map(toWire)
  : v && typeof v === "object" && "$bin" in v ? Buffer.from(v.$bin, "hex")
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toWire(x)]))
  : v;
const fromWire = (v) => v instanceof Uint8Array ? { $bin: Buffer.from(v).toString("hex") }
  : Array.isArray(v) ? v.map(fromWire)
  : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromWire(x)]))
  : v;

test("the vector file holds valid and invalid vectors", () => {
  assert.ok(vectors.filter((v) => v.valid).length >= 10);
  assert.ok(vectors.filter((v) => !v.valid).length >= 10);
});

for (const vector of vectors.filter((v) => v.valid)) {
  test(`valid vector "${vector.name}" decodes and re-encodes to the same bytes`, () => {
    const name = NAME_BY_CODE.get(vector.decoded[0]);
    const message = decodeOneFrame(Buffer.from(vector.hex, "hex"), DIRECTION[name]);
    assert.equal(message.name, name);
    assert.deepEqual(fromWire([MSG[message.name], ...message.values]), vector.decoded);
    const [, ...fields] = toWire(vector.decoded);
    assert.equal(encodeFrame(name, fields).toString("hex"), vector.hex);
  });
}

for (const vector of vectors.filter((v) => !v.valid)) {
  test(`invalid vector "${vector.name}" is rejected as ${vector.error}`, () => {
    assert.throws(() => decodeOneFrame(Buffer.from(vector.hex, "hex"), "to_helper"), (error) => {
      assert.ok(error instanceof ProtocolError, `expected a ProtocolError, got ${error}`);
      assert.equal(error.category, vector.error, error.message);
      return true;
    });
  });
}

test("a frame split into 1-byte reads decodes to the same message", async () => {
  const { FrameReader } = await import("../../js/src/protocol/frames.js");
  const bytes = encodeFrame("data", [7, 1, Buffer.from("hello")]);
  const reader = new FrameReader("to_node");
  const messages = [];
  for (const byte of bytes) messages.push(...reader.push(Buffer.of(byte)));
  assert.equal(messages.length, 1);
  assert.deepEqual(fromWire(messages[0].values), [7, 1, { $bin: Buffer.from("hello").toString("hex") }]);
});

test("several frames in one read all decode, in order", async () => {
  const { FrameReader } = await import("../../js/src/protocol/frames.js");
  const bytes = Buffer.concat([encodeFrame("eof", [3, 1]), encodeFrame("eof", [3, 2]), encodeFrame("written", [3, 9])]);
  const messages = new FrameReader("to_node").push(bytes);
  assert.deepEqual(messages.map((m) => [m.name, ...m.values]), [["eof", 3, 1], ["eof", 3, 2], ["written", 3, 9]]);
});
