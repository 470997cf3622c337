#!/usr/bin/env node
// The portable posix_spawn launcher (the macOS helper's) beside the Linux
// clone(CLONE_VM|CLONE_VFORK) launcher: N execFile("/bin/true") at concurrency C through
// two helpers, one per launcher, in alternating rounds so that both see the same
// machine. Reports launches per second, the helper's CPU per launch (all its threads,
// from /proc/<pid>/stat), and the time inside the OS call that created the process
// (onLaunch's createMs, measured by the helper).
//   node bench/posix-spawn.mjs [--n 2000] [--concurrency 8] [--rounds 3]
import { readFileSync } from "node:fs";
import { ProcessHost } from "spawnhost";
import { machineLine } from "./lib/procfs.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const n = Number(arg("n", 2000));
const concurrency = Number(arg("concurrency", 8));
const rounds = Number(arg("rounds", 3));
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

// utime + stime of the whole process, in seconds.
function processCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

// The helper reads SPAWNHOST_HELPER_POSIX_SPAWN when it starts (the host's first call).
async function startHost(posixSpawn, createMs) {
  if (posixSpawn) process.env.SPAWNHOST_HELPER_POSIX_SPAWN = "1";
  const host = new ProcessHost({ fallback: "error", onLaunch: ({ createMs: ms }) => createMs.push(ms) });
  await host.execFile("/bin/true");
  delete process.env.SPAWNHOST_HELPER_POSIX_SPAWN;
  return host;
}

async function measure(host, createMs) {
  createMs.length = 0;
  const pid = host.stats().helperPid;
  let started = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      await host.execFile("/bin/true");
    }
  };
  const cpu0 = processCpuSeconds(pid);
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return {
    perSecond: n / seconds,
    helperCpuUs: ((processCpuSeconds(pid) - cpu0) * 1e6) / n,
    createUs: (createMs.reduce((a, b) => a + b, 0) / createMs.length) * 1000,
  };
}

const ways = [
  { name: "clone(CLONE_VM\\|CLONE_VFORK)", posixSpawn: false, createMs: [], results: [] },
  { name: "posix_spawn (SPAWNHOST_HELPER_POSIX_SPAWN=1)", posixSpawn: true, createMs: [], results: [] },
];
for (const way of ways) way.host = await startHost(way.posixSpawn, way.createMs);
for (const way of ways) await measure(way.host, way.createMs); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const way of round % 2 ? [...ways].reverse() : ways) way.results.push(await measure(way.host, way.createMs));
}
await Promise.all(ways.map((way) => way.host.shutdown()));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(JSON.stringify(machineLine()), `Node ${process.version}`);
console.log(`N=${n} execFile("/bin/true") per round, concurrency ${concurrency}, ${rounds} alternating rounds; medians (each round in brackets)`);
console.log("| launcher | launches/s | helper CPU per launch | inside the creating call |");
console.log("|---|---|---|---|");
for (const way of ways) {
  const column = (key, digits) => `${median(way.results.map((r) => r[key])).toFixed(digits)} (${way.results.map((r) => r[key].toFixed(digits)).join(", ")})`;
  console.log(`| ${way.name} | ${column("perSecond", 0)} | ${column("helperCpuUs", 0)} µs | ${column("createUs", 0)} µs |`);
}
