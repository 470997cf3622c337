// Run by stream-pipes-burst.test.js in a Node of its own, so that a burst that stalls
// (Node's thread blocked in a pid read no timer can end) is killed by the test's timeout
// instead of hanging the suite. argv: the number of launches. Prints one JSON line: for
// node:child_process and the drop-in, each launch's pid-read time, what its pipes gave,
// and the times of the loop and of the whole burst.
//
// The children are `cat`s, each sent a line and read back, then left running until this
// Node exits. Children that write and exit at once crash wine 8's server when there are
// dozens of them, whoever launches them (docs/architecture.md): node:child_process's own
// burst alone did it within three bursts of 40.
import { createRequire } from "node:module";
import { env, fixture, once } from "./win.js";

const builtin = createRequire(import.meta.url)("node:child_process");
const dropIn = await import("spawnhost/child_process");
const launches = Number(process.argv[2]);

async function burst(spawn) {
  const started = performance.now();
  const children = [];
  const pidMs = [];
  const pids = [];
  // One tick: spawn() and a pid read for each launch, nothing awaited between them.
  for (let i = 0; i < launches; i++) {
    const child = spawn(fixture, ["cat"], { env });
    const before = performance.now();
    pids.push(child.pid);
    pidMs.push(performance.now() - before);
    children.push(child);
  }
  const loopMs = performance.now() - started;
  // Each child's three pipes work: a line written to its stdin comes back on its stdout,
  // and nothing comes on its stderr.
  const results = await Promise.all(children.map(async (child, i) => {
    let error = null;
    let stderr = "";
    child.on("error", (e) => { error = e.code; });
    child.stderr.setEncoding("utf8").on("data", (chunk) => { stderr += chunk; });
    child.stdout.setEncoding("utf8");
    const echoed = once(child.stdout, "data");
    child.stdin.write(`launch ${i}`);
    const [echo] = await echoed;
    return { echo, stderr, error };
  }));
  return { pids, pidMs, results, loopMs, totalMs: performance.now() - started };
}

const childProcess = await burst(builtin.spawn);
const drop = await burst(dropIn.spawn);
console.log(JSON.stringify({ childProcess, dropIn: drop, fallback: dropIn.stats().fallback }));
// The cats end with this Node: node:child_process's see their stdin end, the helper's job
// ends the drop-in's.
process.exit(0);
