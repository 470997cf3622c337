#!/usr/bin/env node
// Blocking calls: spawnSync("/bin/true") through the helper's sync channel
// against child_process.spawnSync, and the cost of reading a launch's pid before the
// helper answered (HostChild#waitForPid), with 0, 1 and 4 GiB of live Buffers in the
// parent. Each heap size runs in a fresh Node process; times are per call, on the
// calling thread (which is blocked for all of it: that is the sync contract).
//   node bench/sync.mjs [--gib 0,1,4] [--calls 300] [--node-calls 40]
import { spawnSync as nodeSpawnSync, execFileSync } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { ProcessHost } from "spawnhost";
import { HelperBackend } from "../js/src/host/backend-helper.js";
import { normalizeSpawnRequest } from "../js/src/core/options.js";
import { allocateBallast } from "./lib/ballast.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};
const calls = Number(arg("calls", 300));
const nodeCalls = Number(arg("node-calls", 40));

if (process.argv.includes("--cell")) {
  process.stdout.write(JSON.stringify(await cell(Number(arg("cell-gib", 0)))));
} else {
  await main();
}

async function main() {
  const sizes = arg("gib", "0,1,4").split(",").map(Number);
  const rows = [];
  for (const gib of sizes) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--cell", "--cell-gib", String(gib), "--calls", String(calls), "--node-calls", String(nodeCalls)],
      { encoding: "utf8", maxBuffer: 1 << 20, stdio: ["ignore", "pipe", "inherit"] });
    rows.push({ gib, ...JSON.parse(out) });
  }
  let commit = "unknown";
  try { commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(); } catch { /* not a checkout */ }
  console.log(`- command: \`node bench/sync.mjs --gib ${sizes.join(",")} --calls ${calls} --node-calls ${nodeCalls}\``);
  console.log(`- machine: ${cpus().length} CPUs, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${new Date().toISOString()}; code ${commit}`);
  console.log(`- load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log("");
  console.log("| live Buffers | spawnSync via helper (median / mean) | child_process.spawnSync (median / mean) | child_process ÷ helper (medians) | early pid read (median / mean) | spawn + early pid (median) |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(`| ${r.gib} GiB | ${us(r.helper.median)} / ${us(r.helper.mean)} | ${us(r.node.median)} / ${us(r.node.mean)} | ${(r.node.median / r.helper.median).toFixed(1)}× | ${us(r.pid.median)} / ${us(r.pid.mean)} | ${us(r.spawnAndPid.median)} |`);
  }
  const first = rows[0], last = rows[rows.length - 1];
  console.log("");
  console.log(`helper spawnSync, largest ÷ smallest heap (medians): ${(last.helper.median / first.helper.median).toFixed(2)}×; ` +
    `early pid: ${(last.pid.median / first.pid.median).toFixed(2)}×; child_process.spawnSync: ${(last.node.median / first.node.median).toFixed(1)}×`);
}

async function cell(gib) {
  allocateBallast(gib);
  const host = new ProcessHost({ fallback: "error" });
  const request = { file: "/bin/true", args: [], envPairs: [`PATH=${process.env.PATH}`], stdio: ["pipe", "pipe", "pipe"] };
  for (let i = 0; i < 20; i++) check(host.launchSync(request)); // the helper starts, caches warm
  const helper = timeEach(calls, () => check(host.launchSync(request)));
  const node = timeEach(nodeCalls, () => check(nodeSpawnSync("/bin/true", [], { env: { PATH: process.env.PATH } })));

  // Early pid: a launch whose `spawned` has not been read, its pid read at once.
  const backend = new HelperBackend({
    onUnhandledChildError() {}, restart: false, killGraceMs: 5000, answerMs: 10_000, platform: process.platform,
  });
  await backend.launch(normalizeSpawnRequest("/bin/true", [], {})).launched;
  const pidTimes = [], bothTimes = [], children = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const { child } = backend.launch(normalizeSpawnRequest("/bin/true", [], { stdio: "ignore" }));
    const t1 = performance.now();
    if (typeof child.waitForPid() !== "number") throw new Error("no early pid");
    const t2 = performance.now();
    pidTimes.push(t2 - t1);
    bothTimes.push(t2 - t0);
    children.push(new Promise((resolve) => child.on("close", resolve)));
    child.release();
    if (children.length === 50) await Promise.all(children.splice(0)); // reap as we go
  }
  await Promise.all(children);
  await backend.shutdown();
  await host.shutdown();
  return { helper, node, pid: stats(pidTimes), spawnAndPid: stats(bothTimes) };
}

function timeEach(n, call) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    call();
    times.push(performance.now() - t0);
  }
  return stats(times);
}

function check(result) {
  if (result.status !== 0 || result.error) throw new Error(`/bin/true failed: ${JSON.stringify(result.error ?? result.status)}`);
}

function stats(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { median: sorted[sorted.length >> 1], mean: times.reduce((a, b) => a + b, 0) / times.length };
}

function us(ms) {
  return ms >= 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms * 1000)} µs`;
}
