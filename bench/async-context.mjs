#!/usr/bin/env node
// What keeping each child's async context costs: one AsyncResource per
// launch and one runInAsyncScope per message from the helper, against direct calls.
// A launch hears about four messages (spawned, exit, two eofs). The whole launch path
// (bench/launch-path.mjs) is tens of microseconds per launch; this is the added part.
//   node bench/async-context.mjs [als]   (als: with an AsyncLocalStorage in use)
import { AsyncResource, AsyncLocalStorage } from "node:async_hooks";
if (process.argv[2] === "als") new AsyncLocalStorage().enterWith({ r: 1 });
const N = 1_000_000;
const h = { onMessage: (n, v) => { sink += v.length; } };
let sink = 0;
const vals = [1, 2, 3];
function run(label, fn) {
  for (let i = 0; i < 100000; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  console.log(label, (Number(process.hrtime.bigint() - t0) / N).toFixed(1), "ns");
}
run("new AsyncResource", () => { h.scope = new AsyncResource("SPAWNHOST_CHILD"); });
const r = new AsyncResource("X");
run("direct call", () => h.onMessage("data", vals));
run("runInAsyncScope", () => r.runInAsyncScope(h.onMessage, h, "data", vals));
run("per launch: 1 resource + 4 messages", () => { const s = new AsyncResource("X"); for (let j = 0; j < 4; j++) s.runInAsyncScope(h.onMessage, h, "data", vals); });
run("per launch before: 4 direct", () => { for (let j = 0; j < 4; j++) h.onMessage("data", vals); });
