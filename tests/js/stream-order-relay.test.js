// The order of a child's stdout and stderr under the relay: each
// stream's data comes in a loop turn of its own, as separate pipes give it, so that
// nano-spawn's line merge sees a child's stdout lines before the stderr lines it wrote
// after them even when both arrived while this thread was busy; and the relay keeps the
// order in which the helper read them (zx's case). Counted over 20 runs against
// node:child_process in the same thread (tests/fixtures/stream-order-relay.mjs), with
// SPAWNHOST_STREAMS=relay in the main thread and in a worker thread (whose helper relays).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { setImmediate as nextTurn } from "node:timers/promises";
import { modes } from "./support/modes.js";
import { FrameDispatch } from "../../js/src/helper/frame-dispatch.js";
import { encodeFrame } from "../../js/src/protocol/frames.js";

const run = promisify(execFile);
const fixture = fileURLToPath(new URL("../fixtures/stream-order-relay.mjs", import.meta.url));
const RUNS = 20;
// How many runs fewer than Node's may end in Node's order: timing noise on a loaded machine.
const SLACK = 3;

for (const [where, args] of [["the main thread", []], ["a worker thread", ["worker"]]]) {
  test(`${where}, relayed: a child's stdout and stderr reach a line merge in Node's order, and in the order the helper read them`, {
    skip: process.platform === "win32" || !modes().includes("helper"),
  }, async () => {
    const { stdout } = await run(process.execPath, [fixture, ...args], {
      env: { ...process.env, NODE_OPTIONS: "", SPAWNHOST_STREAMS: "relay", STREAM_ORDER_RUNS: String(RUNS) }, timeout: 120_000,
    });
    const { lineWise, zx } = JSON.parse(stdout);
    // a,b (stdout) then c,d (stderr): before, both came in one callback, merged a,c,b,d.
    assert.ok(lineWise.spawnhost >= lineWise.node - SLACK, `a,b,c,d in ${lineWise.spawnhost} of ${RUNS} runs, Node's ${lineWise.node}`);
    // stderr 10 ms before stdout: the helper read stderr first, and the relay keeps that
    // order, where Node, busy, reads both pipes at once (stdout first: docs/drop-in.md).
    assert.ok(zx.spawnhost >= RUNS - SLACK, `err,out in ${zx.spawnhost} of ${RUNS} runs (Node: ${zx.node})`);
  });
}

// The mechanism itself, without timing: frames as one read from the helper would bring them.
function dispatcher() {
  const seen = [];
  const source = { paused: 0, resumed: 0, pause() { this.paused++; }, resume() { this.resumed++; } };
  const ended = [];
  const dispatch = new FrameDispatch({
    bootstrap: null, orphans: null, source,
    handlers: { deliver: (id, name, values) => seen.push(`${name} ${id}:${values[1]}${values[2] ? ` ${Buffer.from(values[2])}` : ""}`) },
    on: { heard() {}, hello() {}, broken: (reason) => ended.push(reason) },
  });
  return { dispatch, seen, source, ended };
}
const data = (id, fd, text) => encodeFrame("data", [id, fd, Buffer.from(text)]);
const eof = (id, fd) => encodeFrame("eof", [id, fd]);

test("one read with two streams' data: the second stream's waits for the next loop turn, every frame in order, the helper's stdout paused meanwhile", async () => {
  const { dispatch, seen, source, ended } = dispatcher();
  dispatch.push(Buffer.concat([data(1, 1, "a"), data(1, 1, "b"), eof(1, 1), data(1, 2, "c"), eof(1, 2), data(2, 1, "d")]));
  assert.deepEqual(seen, ["data 1:1 a", "data 1:1 b", "eof 1:1"]);
  assert.deepEqual(source, { paused: 1, resumed: 0, pause: source.pause, resume: source.resume });
  // Arriving meanwhile (read before the pause took effect): behind what waits.
  dispatch.push(data(1, 2, "e"));
  dispatch.end();
  await Promise.resolve();
  assert.equal(seen.length, 3, "not before every microtask has run");
  await nextTurn();
  assert.deepEqual(seen.slice(3), ["data 1:2 c", "eof 1:2"]);
  await nextTurn();
  assert.deepEqual(seen.slice(5), ["data 2:1 d"]);
  assert.deepEqual(ended, []);
  await nextTurn();
  assert.deepEqual(seen.slice(6), ["data 1:2 e"]);
  // The stdout's end comes after all of it, and reading resumes only when nothing waits.
  assert.deepEqual(ended, ["its stdout ended"]);
  assert.equal(source.resumed, 0);
});

test("one stream's data is never split, and the helper going away delivers what waits at once", async () => {
  const { dispatch, seen, source } = dispatcher();
  dispatch.push(Buffer.concat([data(3, 1, "a"), data(3, 1, "b"), data(3, 1, "c")]));
  dispatch.push(Buffer.concat([data(3, 2, "x"), data(3, 1, "d")]));
  assert.deepEqual(seen, ["data 3:1 a", "data 3:1 b", "data 3:1 c", "data 3:2 x"]);
  assert.equal(source.paused, 1);
  dispatch.flush();
  assert.deepEqual(seen.slice(4), ["data 3:1 d"]);
  await nextTurn();
  assert.equal(seen.length, 5, "nothing twice");
});
