// The per-launch cost of `spawn` with three pipes (issue 24): `/bin/true` spawned with
// the default stdio, each child's close awaited, at concurrency 8, by child_process and
// by a ProcessHost (its streams handed over, or relayed with SPAWNHOST_STREAMS=relay),
// rotated over rounds; medians of launches/s and Node CPU per launch.
//   node bench/spawn-pipes.mjs [--n 1000] [--rounds 3]
import * as childProcess from "node:child_process";
import { ProcessHost } from "spawnhost";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = arg("n", 1000);
const rounds = arg("rounds", 3);
const concurrency = 8;

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
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { perSecond: (n / ms) * 1000, cpuUsPerLaunch: (used.user + used.system) / n };
}

const host = new ProcessHost({ mode: "helper", fallback: "error" });
await closed(await host.spawn("/bin/true"));
const ways = {
  child_process: () => childProcess.spawn("/bin/true"),
  spawnhost: () => host.spawn("/bin/true"),
};
const results = { child_process: [], spawnhost: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? ["spawnhost", "child_process"] : ["child_process", "spawnhost"];
  for (const way of order) results[way].push(await run(ways[way]));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const streams = process.env.SPAWNHOST_STREAMS === "relay" ? "relayed" : "handed over";
console.log(`spawn of /bin/true with three pipes, n=${n} at concurrency ${concurrency}, ${rounds} rounds; spawnhost streams ${streams}; load ${(await import("node:os")).loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const way of ["child_process", "spawnhost"]) {
  const r = results[way];
  console.log(`${way}: ${median(r.map((x) => x.perSecond)).toFixed(0)} launches/s, Node CPU ${median(r.map((x) => x.cpuUsPerLaunch)).toFixed(0)} µs per launch`);
}
await host.shutdown();
