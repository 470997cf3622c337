#!/usr/bin/env node
// The helper's own work per launch (part 4): `/bin/true` to completion through
// ProcessHost.execFile, C at a time. First a burst timed by /proc (the helper's CPU, all
// its threads, per launch, beside Node's main thread), then a burst under
// `strace -c` attached to every helper thread (not -f: its children's own system calls
// are not the helper's), printed as system calls per launch.
//   node bench/diag/helper-work.mjs [--n 2000] [--concurrency 8] [--file /bin/true]
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, mkdtempSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { runBurst, warmUp } from "../lib/burst.mjs";
import { makeWay } from "../lib/ways.mjs";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const n = Number(arg("n", 2000));
const concurrency = Number(arg("concurrency", 8));
const file = arg("file", "/bin/true");
const ticks = 100; // USER_HZ on Linux

const load0 = loadavg();
const way = await makeWay("spawnhost");
await warmUp(way, file, [], 64);
const helper = way.helperPid();
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticks; // utime + stime, seconds
};
const h0 = cpuOf(helper);
const burst = await runBurst(way, { n, concurrency, file, args: [], monitor: false });
const helperUs = ((cpuOf(helper) - h0) * 1e6) / n;

const out = `${mkdtempSync(`${tmpdir()}/helper-work-`)}/strace.txt`;
const tids = readdirSync(`/proc/${helper}/task`);
const strace = spawn("strace", ["-c", "-o", out, ...tids.flatMap((t) => ["-p", t])], { stdio: "ignore" });
await new Promise((resolve) => setTimeout(resolve, 1000)); // attached
await runBurst(way, { n, concurrency, file, args: [], monitor: false });
strace.kill("SIGINT");
await new Promise((resolve) => strace.on("close", resolve));
await way.close();

console.log(`## Helper work per launch: ${n} × ${file}, ${concurrency} at a time\n`);
console.log(`launches/s ${burst.perSecond.toFixed(0)}; Node main-thread CPU ${(burst.cpuPerLaunchMs * 1000).toFixed(1)} µs, helper CPU (all threads) ${helperUs.toFixed(1)} µs per launch; Node wake-ups ${burst.wakeupsPerLaunch?.toFixed(2)} per launch\n`);
console.log(`helper threads traced: ${tids.length}\n`);
console.log("| system call | calls per launch | errors per launch |");
console.log("| --- | --- | --- |");
let total = 0;
for (const line of readFileSync(out, "utf8").split("\n")) {
  const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(\d+)?\s*(\w+)$/.exec(line);
  if (!m || m[3] === "total") continue;
  total += Number(m[1]);
  console.log(`| ${m[3]} | ${(Number(m[1]) / n).toFixed(2)} | ${m[2] ? (Number(m[2]) / n).toFixed(2) : ""} |`);
}
console.log(`| **total** | **${(total / n).toFixed(2)}** | |`);
console.log(`\nload average at start ${load0.map((x) => x.toFixed(2)).join(" ")}, at end ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
