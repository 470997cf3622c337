#!/usr/bin/env node
// Slow launches: a burst of N launches where creating each process holds the
// thread that creates it for --delay-ms, as CreateProcessW does on a Windows host whose
// endpoint security scans every new process (0.3 to 0.9 s measured in the wild).
//
// The helper is slowed with SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS: each launch sleeps on
// its launch thread before the OS call (helper/session/launches.cpp), in a test build only
// (scripts/build-helper: build/spawnhost-helper, the default --helper here; on Windows
// scripts/build-static --test-hooks win32-x64). child_process makes that
// call on Node's own thread, so its cell blocks that thread for the same time before
// each execFile (Atomics.wait): what the same slow CreateProcessW would cost it. A child
// that is merely slow to print (a fixture sleeping before its first output) would hold
// no launch thread at all, and so would not show the pool.
//
// Each cell runs in a fresh Node process, one after the other. Per cell: the time until
// all N have exited, how long the calling thread was blocked inside the start calls,
// and the event-loop delay (monitorEventLoopDelay, 1 ms resolution) during the burst.
// The helper runs with --caps (maxLaunchThreads, the pool's cap; 2 is the old fixed
// pool) and every cell also without the delay, the cost side of a larger cap.
//   node bench/slow-launch.mjs [--n 32] [--delay-ms 500] [--caps 2,4,8,16,32]
//     [--helper PATH] [--child PATH] [--child-args a,b]
// On Windows Node under wine, from the repository (see bench/RESULTS.md):
//   WINEDEBUG=-all wine node.exe bench/slow-launch.mjs --helper Z:\...\spawnhost-helper.exe
//     --child Z:\...\fixture.exe --child-args exit,0 > out.txt 2> err.txt
import { execFile, execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { ProcessHost } from "../js/src/index.js";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};
const n = Number(arg("n", 32));
const delayMs = Number(arg("delay-ms", 500));
const caps = arg("caps", "2,4,8,16,32").split(",").map(Number);
const windows = process.platform === "win32";
const helper = arg("helper", process.env.SPAWNHOST_HELPER_PATH ?? (windows ? "" : fileURLToPath(new URL("../build/spawnhost-helper", import.meta.url))));
const child = arg("child", windows ? "cmd.exe" : "/bin/true");
const childArgs = arg("child-args", windows ? "/c,exit" : "").split(",").filter(Boolean);

if (process.argv.includes("--cell")) {
  process.stdout.write(JSON.stringify(await cell(arg("way"), Number(arg("cap", 0)), Number(arg("delay", 0)))));
} else {
  await main();
}

async function cell(way, cap, delay) {
  const host = way === "helper" ? new ProcessHost({ mode: "helper", maxLaunchThreads: cap, ...(helper && { helperPath: helper }) }) : null;
  if (host) await host.execFile(child, childArgs); // the helper is up before the clock starts
  const run = host ? (f, a) => host.execFile(f, a)
    : (f, a) => {
      if (delay) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay); // CreateProcessW, slow
      return new Promise((resolve, reject) => execFile(f, a, (e, stdout) => (e ? reject(e) : resolve(stdout))));
    };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await new Promise((resolve) => setTimeout(resolve, 20)); // the monitor's first sample
  const t0 = performance.now();
  let blocked = 0;
  const calls = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    calls.push(run(child, childArgs));
    blocked += performance.now() - s;
  }
  const outcomes = await Promise.allSettled(calls);
  const total = performance.now() - t0;
  loop.disable();
  const failed = outcomes.filter((o) => o.status === "rejected");
  if (host) await host.shutdown();
  return {
    total, blocked, failed: failed.length, firstError: failed[0] ? describe(failed[0].reason) : null,
    loopMax: loop.max / 1e6, loopP99: loop.percentile(99) / 1e6,
  };
}

function describe(error) {
  const { code, errno, syscall } = error;
  return `${error.message.split("\n")[0]} (code ${code}, errno ${errno}, syscall ${syscall})`;
}

function runCell(way, cap, delay) {
  const env = { ...process.env, SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS: String(delay) };
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--cell", "--way", way, "--cap", String(cap), "--delay", String(delay),
    "--n", String(n), "--helper", helper, "--child", child, "--child-args", childArgs.join(",") || ","],
  { encoding: "utf8", env, maxBuffer: 1 << 20, stdio: ["ignore", "pipe", "ignore"] });
  return JSON.parse(out);
}

async function main() {
  const ways = [["node:child_process", "node", 0], ...caps.map((cap) => [`spawnhost, cap ${cap}`, "helper", cap])];
  const rows = [];
  for (const delay of [delayMs, 0]) {
    for (const [name, way, cap] of ways) rows.push({ name, delay, ...runCell(way, cap, delay) });
  }
  let commit = "unknown";
  try { commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim(); } catch { /* not a checkout, or no git */ }
  console.log(`- command: \`node bench/slow-launch.mjs --n ${n} --delay-ms ${delayMs} --caps ${caps.join(",")}\` (child: ${child} ${childArgs.join(" ")})`);
  console.log(`- machine: ${process.platform}-${process.arch}, ${cpus().length} CPUs, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${new Date().toISOString()}; code ${commit}`);
  if (!windows) console.log(`- load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log("");
  console.log(`| way | held per launch | ${n} launches, all exited | blocked in start calls | event-loop delay p99 / max | failed |`);
  console.log("| --- | --- | --- | --- | --- | --- |");
  const ms = (v) => `${Math.round(v)} ms`;
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.delay} ms | ${ms(r.total)} | ${ms(r.blocked)} | ${ms(r.loopP99)} / ${ms(r.loopMax)} | ${r.failed}${r.firstError ? ` (${r.firstError})` : ""} |`);
  }
  if (rows.some((r) => r.failed)) process.exitCode = 1;
}
