// Windows Node: many launches in one tick, each pid read right after spawn() (docs/sync.md,
// the early pid), through the drop-in with its stdio handed over on Node's own pipes
// (js/src/helper/stream-pipes.js, docs/architecture.md). Node's thread is blocked in each
// pid read and accepts no pipe connection meanwhile: each launch must find instances
// waiting for its pipes whatever came before it in the loop, or the helper waits (30 s
// a launch, or for ever). Compared with node:child_process doing the same in the same
// run. The burst runs in a Node of its own (support/burst-app.mjs), killed at the
// timeout, so that a stall fails this test rather than hanging the suite.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { test } from "node:test";
import { runNode } from "./support/win.js";

const LAUNCHES = 40;
// A launch that finds no instance waits in the helper until one comes (WaitNamedPipeW, 1 s
// at a time), and none comes while Node's thread is blocked: 30 s, the helper's limit.
// Well under that, well over a pid read's tens of ms under wine at load 5.
const HELPER_WAIT_MS = 5000;

test(`${LAUNCHES} spawn() + pid reads in one tick: all run at once, each with its three pipes working, as child_process's`, { timeout: 150_000 }, async () => {
  const { code, signal, stdout, stderr } = await runNode([join(import.meta.dirname, "support/burst-app.mjs"), String(LAUNCHES)], { timeout: 90_000 });
  assert.ok(code === 0 && signal === null, `the burst did not finish in 90 s (code ${code}, signal ${signal}): ${stderr}`);
  const run = JSON.parse(stdout.trim().split("\n").at(-1));
  const expected = Array.from({ length: LAUNCHES }, (_, i) => ({ echo: `launch ${i}`, stderr: "", error: null }));
  for (const [name, burst] of Object.entries({ child_process: run.childProcess, "spawnhost/child_process": run.dropIn })) {
    assert.deepEqual(burst.results, expected, name);
    assert.ok(burst.pids.every((pid) => Number.isInteger(pid) && pid > 0), `${name}: a pid for each launch at once`);
    assert.equal(new Set(burst.pids).size, LAUNCHES, `${name}: pids distinct`);
  }
  assert.equal(run.fallback, 0, "every launch went through the helper");
  const slowest = Math.max(...run.dropIn.pidMs);
  assert.ok(slowest < HELPER_WAIT_MS, `a pid read took ${Math.round(slowest)} ms: its launch waited for a pipe instance`);
  const bound = Math.max(10_000, 5 * run.childProcess.totalMs);
  assert.ok(run.dropIn.totalMs < bound, `the drop-in's burst took ${Math.round(run.dropIn.totalMs)} ms; child_process's ${Math.round(run.childProcess.totalMs)} ms`);
  console.log(`# burst of ${LAUNCHES}: child_process ${Math.round(run.childProcess.totalMs)} ms (loop ${Math.round(run.childProcess.loopMs)}), ` +
    `drop-in ${Math.round(run.dropIn.totalMs)} ms (loop ${Math.round(run.dropIn.loopMs)}, slowest pid read ${Math.round(slowest)} ms)`);
});
