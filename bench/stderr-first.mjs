// The Node CPU per launch of children that write stderr before stdout (
// the helper then tells Node, one more line on its IPC channel, and Node moves stdout's
// reading behind stderr's), against node:child_process in the same run: a short `sh`
// writing to stderr then stdout, each child's close awaited, concurrency 8, ways
// rotated over rounds; medians of Node CPU per launch and of launches/s.
//   node bench/stderr-first.mjs [--n 400] [--rounds 3]
import * as childProcess from "node:child_process";
import os from "node:os";
import { ProcessHost } from "spawnhost";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = arg("n", 400);
const rounds = arg("rounds", 3);
const concurrency = 8;
const CHILD = ["sh", ["-c", "printf x >&2; printf y"]];

const closed = (child) => new Promise((resolve) => {
  child.stdout.resume();
  child.stderr.resume();
  child.on("close", resolve);
});

async function run(spawn) {
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) await closed(await spawn());
  }));
  const used = process.cpuUsage(cpu);
  return { perSecond: (n / (performance.now() - t0)) * 1000, cpuUsPerLaunch: (used.user + used.system) / n };
}

const host = new ProcessHost({ mode: "helper", fallback: "error" });
await closed(await host.spawn("/bin/true"));
const ways = {
  child_process: () => childProcess.spawn(...CHILD),
  "spawnhost handed over": () => host.spawn(...CHILD),
};
const results = Object.fromEntries(Object.keys(ways).map((way) => [way, []]));
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(ways);
  for (const way of round % 2 ? names.reverse() : names) results[way].push(await run(ways[way]));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`${CHILD[1][1]}, n=${n} per way at concurrency ${concurrency}, ${rounds} rounds; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const [way, runs] of Object.entries(results)) {
  console.log(`${way}: ${median(runs.map((x) => x.perSecond)).toFixed(0)} launches/s | Node CPU ${median(runs.map((x) => x.cpuUsPerLaunch)).toFixed(0)} µs per launch`);
}
await host.shutdown();
