#!/usr/bin/env node
// Wake-ups of Node's main thread per launch: `node -e ""` and `/bin/true`
// launched to completion (execFile) at concurrency 1, 8 and 64 by node:child_process,
// the worker-thread host (bench/worker-host.mjs) and spawnhost's helper, in one process,
// in rotated order, medians over rounds, beside the main thread's CPU and the time it
// spent inside each start call. A wake-up is a voluntary context switch of the main
// thread (bench/lib/procfs.mjs, mainThreadWakeups): the loop slept in epoll_wait and
// something arrived. No loop monitor runs meanwhile (its timers would wake it too).
//   node bench/wakeups.mjs [--rounds 3] [--n-node 100] [--n-true 1000] [--ways LIST]
import { cpus, loadavg } from "node:os";
import { runBurst, warmUp } from "./lib/burst.mjs";
import { makeWay } from "./lib/ways.mjs";
import { percentile } from "./lib/stats.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const rounds = Number(arg("rounds", 3));
const names = arg("ways", "spawnhost,worker-host,child_process").split(",");
const programs = [
  { label: 'node -e ""', file: process.execPath, args: ["-e", ""], n: Number(arg("n-node", 100)) },
  { label: "/bin/true", file: "/bin/true", args: [], n: Number(arg("n-true", 1000)) },
];
const concurrencies = [1, 8, 64];

const load0 = loadavg();
const ways = {};
for (const name of names) ways[name] = await makeWay(name);
for (const way of Object.values(ways)) for (const p of programs) await warmUp(way, p.file, p.args);

// results[program][concurrency][way] = one burst per round
const results = {};
for (let round = 0; round < rounds; round++) {
  for (const p of programs) {
    for (const concurrency of concurrencies) {
      const cell = ((results[p.label] ??= {})[concurrency] ??= {});
      const rotated = names.map((_, i) => names[(i + round) % names.length]);
      for (const name of rotated) {
        const r = await runBurst(ways[name], { n: p.n, concurrency, file: p.file, args: p.args, monitor: false });
        (cell[name] ??= []).push(r);
        process.stderr.write(`round ${round + 1} ${p.label} c=${concurrency} ${name}: ${r.wakeupsPerLaunch?.toFixed(2)} wake-ups, ${(r.cpuPerLaunchMs * 1000).toFixed(0)} µs CPU\n`);
      }
    }
  }
}
for (const way of Object.values(ways)) await way.close();

const median = (list, key) => percentile(list.map((r) => r[key]), 50);
const fmt = (v, digits = 0) => (v === undefined || v === null || Number.isNaN(v) ? "–" : v.toFixed(digits));
console.log(`## Main-thread wake-ups per launch, medians of ${rounds} rounds (rotated order)\n`);
console.log("| program | concurrency | way | wake-ups per launch | main-thread CPU per launch | blocked per start call | launches/s |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const p of programs) {
  for (const c of concurrencies) {
    for (const name of names) {
      const list = results[p.label][c][name];
      console.log(`| ${p.label} | ${c} | ${name} | ${fmt(median(list, "wakeupsPerLaunch"), 2)} | ${fmt(median(list, "cpuPerLaunchMs") * 1000)} µs | ${fmt(median(list, "blockedPerLaunchMs") * 1000, 1)} µs | ${fmt(median(list, "perSecond"))} |`);
    }
  }
}
if (ways.spawnhost && names.length > 1) {
  console.log("\n| program | concurrency | " + names.filter((n) => n !== "spawnhost").map((n) => `CPU ÷ ${n} | blocked ÷ ${n}`).join(" | ") + " |");
  console.log("| --- | --- | " + names.filter((n) => n !== "spawnhost").map(() => "--- | ---").join(" | ") + " |");
  for (const p of programs) {
    for (const c of concurrencies) {
      const cell = results[p.label][c];
      const ratio = (key, other) => median(cell.spawnhost, key) / median(cell[other], key);
      console.log(`| ${p.label} | ${c} | ` + names.filter((n) => n !== "spawnhost").map((n) => `${fmt(ratio("cpuPerLaunchMs", n), 2)}× | ${fmt(ratio("blockedPerLaunchMs", n), 2)}×`).join(" | ") + " |");
    }
  }
}
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(" ");
console.log(`\nmachine: ${cpus().length} cores, node ${process.version}; load average at start ${fmtLoad(load0)}, at end ${fmtLoad(loadavg())}`);
