// The order of a child's stdout and stderr under the relay (issue 30, item 5): each
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
import { modes } from "./support/modes.js";

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
