#!/usr/bin/env node
// Real children at the floor (target 3): `/bin/true` launched to completion at
// concurrency 8 and 64 by spawnhost's execFile, child_process.execFile and a C program
// (bench/c-floor.c: vfork + execve + waitpid on 2 threads, built here with cc), all in
// the same run, in rotated order, medians over rounds. Reports launches/s (and each
// as a share of the C floor), main-thread CPU per launch and event-loop delay.
//   node bench/real-launch.mjs [--n 1000] [--rounds 3] [--threads 2] [--file /bin/true]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { runBurst, warmUp } from "./lib/burst.mjs";
import { makeWay } from "./lib/ways.mjs";
import { percentile } from "./lib/stats.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const n = Number(arg("n", 1000));
const rounds = Number(arg("rounds", 3));
const threads = Number(arg("threads", 2));
const file = arg("file", "/bin/true");
const concurrencies = [8, 64];
if (!(n > 0 && rounds > 0 && threads > 0)) throw new TypeError("--n, --rounds and --threads must be positive numbers");

const dir = mkdtempSync(`${tmpdir()}/spawnhost-real-launch-`);
const floorBinary = `${dir}/c-floor`;
try {
  execFileSync("cc", ["-O2", "-pthread", "-o", floorBinary, fileURLToPath(new URL("./c-floor.c", import.meta.url))], { stdio: "inherit" });
} catch (error) {
  throw new Error(`bench/real-launch: building bench/c-floor.c with cc failed (${error.message})`);
}

const load0 = loadavg();
const ways = { spawnhost: await makeWay("spawnhost"), child_process: await makeWay("child_process") };
for (const way of Object.values(ways)) await warmUp(way, file, []);

function floor() {
  const out = JSON.parse(execFileSync(floorBinary, [String(n), String(threads), file], { encoding: "utf8" }));
  return { perSecond: out.per_second };
}

// results[concurrency][name] = one entry per round
const results = Object.fromEntries(concurrencies.map((c) => [c, { spawnhost: [], child_process: [], "C floor": [] }]));
const order = ["spawnhost", "child_process", "C floor"];
for (let round = 0; round < rounds; round++) {
  for (const concurrency of concurrencies) {
    const rotated = order.map((_, i) => order[(i + round) % order.length]);
    for (const name of rotated) {
      const r = name === "C floor" ? floor() : await runBurst(ways[name], { n, concurrency, file, args: [] });
      results[concurrency][name].push(r);
      process.stderr.write(`round ${round + 1} c=${concurrency} ${name}: ${Math.round(r.perSecond)}/s\n`);
    }
  }
}
for (const way of Object.values(ways)) await way.close();
rmSync(dir, { recursive: true, force: true });

const median = (list, key) => percentile(list.map((r) => r[key]), 50);
const fmt = (v, digits = 0) => (v === undefined || v === null || Number.isNaN(v) ? "–" : v.toFixed(digits));
console.log(`## Real children: ${n} × \`${file}\` to completion, medians of ${rounds} rounds (rotated order)\n`);
console.log("| concurrency | way | launches/s | % of C floor | main-thread CPU per launch | event-loop delay p99 |");
console.log("| --- | --- | --- | --- | --- | --- |");
for (const c of concurrencies) {
  const floorRate = median(results[c]["C floor"], "perSecond");
  for (const name of order) {
    const list = results[c][name];
    const rate = median(list, "perSecond");
    const cpu = name === "C floor" ? undefined : median(list, "cpuPerLaunchMs") * 1000;
    const p99 = name === "C floor" ? undefined : median(list, "loopP99Ms");
    console.log(`| ${c} | ${name} | ${fmt(rate)} | ${fmt((100 * rate) / floorRate)}% | ${cpu === undefined ? "–" : `${fmt(cpu)} µs`} | ${p99 === undefined ? "–" : `${fmt(p99, 1)} ms`} |`);
  }
}
console.log("\n| concurrency | spawnhost / C floor (target ≥ 85%) | child_process CPU ÷ spawnhost CPU (target ≥ 25) | child_process p99 ÷ spawnhost p99 (target ≥ 40 at 64) |");
console.log("| --- | --- | --- | --- |");
for (const c of concurrencies) {
  const r = results[c];
  const share = median(r.spawnhost, "perSecond") / median(r["C floor"], "perSecond");
  const cpu = median(r.child_process, "cpuPerLaunchMs") / median(r.spawnhost, "cpuPerLaunchMs");
  const p99 = median(r.child_process, "loopP99Ms") / median(r.spawnhost, "loopP99Ms");
  console.log(`| ${c} | ${fmt(100 * share)}% | ${fmt(cpu, 1)}× | ${fmt(p99, 1)}× |`);
}
const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(" ");
console.log(`\nmachine: ${cpus().length} cores, node ${process.version}, C floor on ${threads} threads; load average at start ${fmtLoad(load0)}, at end ${fmtLoad(loadavg())}`);
