// Windows Node: many launches in one synchronous loop, each pid read right after spawn()
// (docs/sync.md, the early pid), through the drop-in with its stdio handed over on
// Node's own pipes (js/src/helper/stream-pipes.js). Node's thread is blocked in each pid
// read and accepts no connection meanwhile: every launch must find the pipe instances it
// connects to already made, whatever came before it in the loop. Compared with
// node:child_process doing the same, in the same run.
import { strict as assert } from "node:assert";
import { createRequire } from "node:module";
import { test } from "node:test";
import { env, fixture, once, readAll } from "./support/win.js";

const builtin = createRequire(import.meta.url)("node:child_process");
const dropIn = await import("spawnhost/child_process");

const LAUNCHES = 40;

/** 40 spawns in one loop, pid read after each; then every child's output and exit. */
async function burst(spawn) {
  const started = performance.now();
  const children = [];
  const pids = [];
  for (let i = 0; i < LAUNCHES; i++) {
    const child = spawn(fixture, ["argv", `launch ${i}`], { env });
    pids.push(child.pid);
    children.push(child);
  }
  const loopMs = performance.now() - started;
  const results = await Promise.all(children.map(async (child) => {
    child.on("error", () => {});
    const [stdout, stderr, [code]] = await Promise.all([readAll(child.stdout), readAll(child.stderr), once(child, "close")]);
    return { code, argv: JSON.parse(stdout).argv, stderr };
  }));
  return { pids, results, loopMs, totalMs: performance.now() - started };
}

test(`${LAUNCHES} spawns in one synchronous loop, each pid read at once: all run, with their output, as child_process's`, { timeout: 120_000 }, async () => {
  const expected = Array.from({ length: LAUNCHES }, (_, i) => ({ code: 0, argv: [`launch ${i}`], stderr: "" }));
  const theirs = await burst(builtin.spawn);
  const ours = await burst(dropIn.spawn);
  for (const [name, run] of Object.entries({ child_process: theirs, "spawnhost/child_process": ours })) {
    assert.deepEqual(run.results, expected, name);
    assert.ok(run.pids.every((pid) => Number.isInteger(pid) && pid > 0), `${name}: a pid for each launch at once`);
    assert.equal(new Set(run.pids).size, LAUNCHES, `${name}: pids distinct`);
  }
  assert.equal(dropIn.stats().fallback, 0, JSON.stringify(dropIn.stats().fallbackReasons));
  // Nothing waits on a pipe nobody accepts (the helper gives up on one after 30 s): the
  // loop takes a few seconds at most, as child_process's does under wine.
  const bound = Math.max(10_000, 5 * theirs.totalMs);
  assert.ok(ours.totalMs < bound, `the drop-in's burst took ${Math.round(ours.totalMs)} ms (loop ${Math.round(ours.loopMs)} ms); child_process's ${Math.round(theirs.totalMs)} ms`);
  console.log(`# burst of ${LAUNCHES}: child_process ${Math.round(theirs.totalMs)} ms, drop-in ${Math.round(ours.totalMs)} ms (its loop ${Math.round(ours.loopMs)} ms)`);
});
