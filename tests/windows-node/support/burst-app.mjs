// Run by stream-pipes-burst.test.js in a Node of its own, so that a burst that stalls
// (Node's thread blocked in a pid read no timer can end) is killed by the test's timeout
// instead of hanging the suite. argv: the number of launches. Prints one JSON line: for
// node:child_process and the drop-in, each launch's pid-read time, its result, and the
// times of the loop and of the whole burst.
import { createRequire } from "node:module";
import { env, fixture, once, readAll } from "./win.js";

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
    const child = spawn(fixture, ["argv", `launch ${i}`], { env });
    const before = performance.now();
    pids.push(child.pid);
    pidMs.push(performance.now() - before);
    children.push(child);
  }
  const loopMs = performance.now() - started;
  const results = await Promise.all(children.map(async (child) => {
    const error = once(child, "error").then(([e]) => e.code);
    const [stdout, stderr, [code]] = await Promise.all([readAll(child.stdout), readAll(child.stderr), once(child, "close")]);
    return { code, argv: stdout ? JSON.parse(stdout).argv : null, stderr, error: await Promise.race([error, null]) };
  }));
  return { pids, pidMs, results, loopMs, totalMs: performance.now() - started };
}

const childProcess = await burst(builtin.spawn);
const drop = await burst(dropIn.spawn);
console.log(JSON.stringify({ childProcess, dropIn: drop, fallback: dropIn.stats().fallback }));
