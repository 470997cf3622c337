// encodeSpawnFrame reuses the environment's encoded bytes; it must give exactly the
// frame encodeFrame gives for the same message with `env` as the options' last key,
// on the shared vectors and on random spawns, and never bytes of an older environment.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decodeOneFrame, encodeFrame } from "../../js/src/protocol/frames.js";
import { encodeSpawnFrame } from "../../js/src/protocol/spawn-frame.js";
import { MSG } from "../../js/src/protocol/generated.js";

const { vectors } = JSON.parse(readFileSync(new URL("../../schema/vectors.json", import.meta.url), "utf8"));

// What encodeFrame gives for the same options, env moved last (map order is free on the wire).
function reference(id, file, args, options) {
  const { env, ...rest } = options;
  return encodeFrame("spawn", [id, file, args, env === undefined ? rest : { ...rest, env }]);
}

for (const vector of vectors.filter((v) => v.valid && v.decoded[0] === MSG.spawn)) {
  test(`vector "${vector.name}": the same bytes as encodeFrame, and it decodes to the vector`, () => {
    const [, id, file, args, options] = vector.decoded;
    const frame = encodeSpawnFrame(id, file, args, { ...options });
    assert.equal(frame.toString("hex"), reference(id, file, args, options).toString("hex"));
    assert.deepEqual(decodeOneFrame(frame, "to_helper").values, [id, file, args, options]);
  });
}

// A small seeded generator, so that a failure names a case that can be replayed.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

test("2,000 random spawns: encodeSpawnFrame equals encodeFrame byte for byte", () => {
  const next = random(20261201);
  const int = (n) => Math.floor(next() * n);
  const alphabet = ["a", "Z", "=", " ", "\u00fc", "\u20ac", "\u{1F600}", "/", "\n"];
  // Lengths around MessagePack's string size classes (31, 255, 65535 bytes).
  // Long strings are made of random 32-character pieces, then single characters.
  const pieces = Array.from({ length: 16 }, () => Array.from({ length: 32 }, () => alphabet[int(alphabet.length)]).join(""));
  const string = () => {
    const length = [0, 1, 5, 30, 31, 32, 100, 255, 256, 70000][int(10)];
    let text = "";
    while (length - text.length > 64) text += pieces[int(pieces.length)];
    while (text.length < length) text += alphabet[int(alphabet.length)];
    return text;
  };
  const optional = {
    cwd: () => string(), argv0: () => string(), node_cwd: () => true, detached: () => next() < 0.5,
    timeout_ms: () => int(2 ** 32), kill_signal: () => "SIGKILL", max_buffer: () => int(2 ** 32), credit: () => int(70000),
    ipc: () => true, uid: () => int(70000), gid: () => int(300), windows_hide: () => true, windows_verbatim_arguments: () => true,
  };
  let envs = [["A=1"], [], Array.from({ length: 40 }, (_, i) => `K${i}=${"v".repeat(i * 7)}`)];
  for (let i = 0; i < 2000; i++) {
    if (i % 50 === 0) envs = [...envs, Array.from({ length: int(20) }, () => `${string()}=${string()}`)];
    const options = { env: envs[int(envs.length)], stdio: [int(3), int(3), int(3)] };
    for (const [key, make] of Object.entries(optional)) if (next() < 0.3) options[key] = make();
    const id = [1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1][int(8)];
    const args = Array.from({ length: int(6) }, string);
    const file = string() || "f";
    const frame = encodeSpawnFrame(id, file, args, options);
    const expected = reference(id, file, args, options);
    if (!frame.equals(expected)) assert.equal(frame.toString("hex"), expected.toString("hex"), `case ${i}`);
    assert.equal(options.env !== undefined, true, "the caller's options keep their env");
  }
});

test("a new environment array is encoded anew, not served from the previous one's bytes", () => {
  const first = encodeSpawnFrame(1, "true", [], { env: ["A=1"], stdio: [0, 0, 0] });
  const second = encodeSpawnFrame(1, "true", [], { env: ["A=2"], stdio: [0, 0, 0] });
  assert.deepEqual(decodeOneFrame(first, "to_helper").values[3].env, ["A=1"]);
  assert.deepEqual(decodeOneFrame(second, "to_helper").values[3].env, ["A=2"]);
});

test("a spawn past the frame limit is refused as oversized, as encodeFrame refuses it", () => {
  const env = ["BIG=" + "x".repeat(5 * 1024 * 1024)];
  assert.throws(() => encodeSpawnFrame(1, "true", [], { env, stdio: [0, 0, 0] }), { category: "oversized" });
});

test("a launch repeating the last one but for its id: the same bytes as encodeFrame, whatever changed in between", () => {
  const next = random(20261203);
  const int = (n) => Math.floor(next() * n);
  const env = Object.freeze(["PATH=/bin", "HOME=/root"]);
  let file = "/bin/true";
  let args = ["-e", ""];
  let options = { cwd: "/work", env, stdio: [0, 0, 0], node_cwd: true, result: 4096 };
  // Each step changes nothing (the repeat) or one thing, in place where a caller could.
  const changes = [
    () => {},
    () => {},
    () => { file = file === "/bin/true" ? "/bin/false" : "/bin/true"; },
    () => { args[int(2)] = ["x", "", "-e", "\u20ac"][int(4)]; },
    () => { args = [...args, "more"].slice(-3); },
    () => { options.stdio[int(3)] = int(3); },
    () => { options.cwd = ["/work", "/tmp", "/"][int(3)]; },
    () => { options.env = next() < 0.5 ? env : ["PATH=/usr/bin"]; },
    () => { options.timeout_ms = int(2 ** 32); },
    () => { delete options.timeout_ms; },
    () => { options.result = [4096, 65536, 0][int(3)]; },
    () => { options = { stdio: options.stdio, ...options }; }, // another key order
  ];
  for (let i = 0; i < 2000; i++) {
    changes[int(changes.length)]();
    const id = [1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1][int(8)];
    assert.equal(encodeSpawnFrame(id, file, args, options).toString("hex"), reference(id, file, args, options).toString("hex"), `step ${i}`);
  }
});
