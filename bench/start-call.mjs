#!/usr/bin/env node
// The start call and the reply path on Node's thread: execFile 8 at a time
// through node:child_process, the worker-thread host (bench/worker-host.mjs) and
// spawnhost's helper, in ONE process, in alternating rounds (each way's rounds are
// spread over the run, so load that comes and goes hits all of them alike), medians
// reported. For each child (`/bin/true`, and the demo's `node -e ""`):
// - main-thread CPU per launch (schedstat of the main thread: a worker's CPU is not
//   the calling thread's), and the time blocked per start call (from the call to its
//   synchronous return);
// - ratios of spawnhost to the worker host and to child_process, beside the targets.
// A fourth way, spawnhost with trackEnv, gives what the exact read of process.env costs
// in the same run. Then where spawnhost's time goes: each part of the start call timed
// alone in a tight loop (CPU per call), and the syscalls and wake-ups per launch of the
// real run.
//   node bench/start-call.mjs [--n 1000] [--rounds 5] [--concurrency 8] [--children true,node]
//     [--package <another checkout's js/>] (to measure an older commit the same way)
import { execFile as cpExecFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { WorkerHost } from "./worker-host.mjs";
import { mainThreadCpuNs, mainThreadWakeups, machineLine } from "./lib/procfs.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const n = Number(arg("n", 1000));
const rounds = Number(arg("rounds", 5));
const concurrency = Number(arg("concurrency", 8));
const children = arg("children", "true,node").split(",");
const pkg = resolve(arg("package", new URL("../js", import.meta.url).pathname));
const internal = (path) => import(pathToFileURL(resolve(pkg, "src", path)).href);
const { ProcessHost } = await internal("index.js");

const CHILDREN = { true: ["/bin/true", []], node: [process.execPath, ["-e", ""]] };
const LABEL = { true: "`/bin/true`", node: "`node -e \"\"`" };

// The process's write and read syscalls so far (/proc/self/io), or null.
function syscalls() {
  try {
    const io = readFileSync("/proc/self/io", "utf8");
    return { w: Number(/^syscw: (\d+)/m.exec(io)[1]), r: Number(/^syscr: (\d+)/m.exec(io)[1]) };
  } catch {
    return null;
  }
}

const cpHost = { execFile: (file, args) => new Promise((ok, fail) => cpExecFile(file, args, (error) => (error ? fail(error) : ok()))) };
const worker = new WorkerHost({ maxPoolWorkers: 4 });
const spawnhost = new ProcessHost({ fallback: "error" });
// The same host without the exact read of process.env on every launch (trackEnv): the
// difference between the two rows is what that read costs in this very run, cold caches
// and all, where the tight-loop figure of the parts below understates it several times.
const tracked = new ProcessHost({ fallback: "error", trackEnv: true });
const WAYS = [["child_process", cpHost], ["worker host", worker], ["spawnhost", spawnhost], ["spawnhost, trackEnv", tracked]];

// trackEnv replaces process.env with a counting Proxy for the whole process. The other
// ways must not read through it (it would slow their reads and skew the ratios), so the
// real object is put back outside the trackEnv host's rounds, and the Proxy (kept from
// its first launch) only inside them.
const realEnv = process.env;
let trackingProxy = null;

// `n` launches, `concurrency` in flight: CPU per launch, blocked per start call (µs).
async function round(host, file, args) {
  if (host === tracked) {
    if (trackingProxy) process.env = trackingProxy;
    try {
      return await measuredRound(host, file, args);
    } finally {
      trackingProxy = process.env;
      process.env = realEnv;
    }
  }
  return measuredRound(host, file, args);
}

async function measuredRound(host, file, args) {
  let started = 0;
  let insideNs = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      const t0 = process.hrtime.bigint();
      const done = host.execFile(file, args);
      insideNs += Number(process.hrtime.bigint() - t0);
      await done;
    }
  };
  const io0 = syscalls();
  const wake0 = mainThreadWakeups();
  const cpu0 = mainThreadCpuNs();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const cpuUs = (mainThreadCpuNs() - cpu0) / 1000 / n;
  const io1 = syscalls();
  const wake1 = mainThreadWakeups();
  return {
    cpuUs, blockedUs: insideNs / 1000 / n,
    writes: io0 && (io1.w - io0.w) / n, reads: io0 && (io1.r - io0.r) / n, wakeups: wake0 === null ? null : (wake1 - wake0) / n,
  };
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  return s.length === 0 ? null : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const results = {};
for (const child of children) {
  const [file, args] = CHILDREN[child];
  for (const [, host] of WAYS) await round(host, file, args); // warm-up: pools, workers, the helper
  const samples = Object.fromEntries(WAYS.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    // Rotated order: no way always runs first or last in a round.
    for (let i = 0; i < WAYS.length; i++) {
      const [name, host] = WAYS[(i + r) % WAYS.length];
      samples[name].push(await round(host, file, args));
    }
  }
  results[child] = Object.fromEntries(WAYS.map(([name]) => {
    const s = samples[name];
    return [name, Object.fromEntries(["cpuUs", "blockedUs", "writes", "reads", "wakeups"].map((k) => [k, median(s.map((x) => x[k]))]))];
  }));
  results[child].range = Object.fromEntries(WAYS.map(([name]) => [name, {
    cpu: [Math.min(...samples[name].map((x) => x.cpuUs)), Math.max(...samples[name].map((x) => x.cpuUs))],
    blocked: [Math.min(...samples[name].map((x) => x.blockedUs)), Math.max(...samples[name].map((x) => x.blockedUs))],
  }]));
}
// The whole start call's CPU, without the preemption a loaded machine adds to the
// blocked time: `burst` calls in one tick (their requests leave together at its end),
// then their replies awaited.
async function startCallCpuUs(host, burst = 500) {
  const calls = new Array(burst);
  const cpu0 = mainThreadCpuNs();
  for (let i = 0; i < burst; i++) calls[i] = host.execFile("/bin/true", []);
  const us = (mainThreadCpuNs() - cpu0) / 1000 / burst;
  await Promise.all(calls);
  return us;
}
const wholeCall = { spawnhost: [], "worker host": [] };
for (let r = 0; r < rounds; r++) {
  wholeCall.spawnhost.push(await startCallCpuUs(spawnhost));
  wholeCall["worker host"].push(await startCallCpuUs(worker));
}
await Promise.all([worker.shutdown(), spawnhost.shutdown(), tracked.shutdown()]);

// The parts of spawnhost's start call, each alone in a tight loop: CPU µs per call.
const { readProcessEnv } = await internal("core/process-env.js");
const { normalizeExecRequest } = await internal("core/options.js");
const { encodeRequestFrame } = await internal("protocol/spawn-frame.js");
const { FrameReader } = await internal("protocol/frames.js");
const { resultHold } = await internal("launch/exec-call.js");
const HOW = { __proto__: null, platform: process.platform, defaultEnv: "remote" };
const perCallUs = (fn, count = 20000) => {
  for (let i = 0; i < 2000; i++) fn();
  const cpu0 = mainThreadCpuNs();
  for (let i = 0; i < count; i++) fn();
  return (mainThreadCpuNs() - cpu0) / 1000 / count;
};
const request = normalizeExecRequest("/bin/true", [], {}, { ...HOW, defaultEnv: "read" });
// A result frame as the helper sends it for /bin/true (id, status, signal, flags, outputs, pid, timings).
const { encodeFrame } = await internal("protocol/frames.js");
const resultFrame = encodeFrame("result", [7, 0, null, 0, new Uint8Array(0), new Uint8Array(0), 12345, 150, 3]);
const reader = new FrameReader("to_node");
const parts = [
  ["reading process.env (exact, every launch; trackEnv skips it)", perCallUs(() => readProcessEnv())],
  ["option normalisation, without the environment", perCallUs(() => normalizeExecRequest("/bin/true", [], {}, HOW))],
  ["encoding the spawn frame", perCallUs(() => encodeRequestFrame(7, request, { result: resultHold(request) }))],
  ["decoding one result frame (reply path)", perCallUs(() => reader.push(resultFrame))],
];

const { kernel, memGiB } = machineLine();
const us = (v) => (v === null ? "–" : `${v.toFixed(1)} µs`);
const x = (a, b) => (a / b).toFixed(2) + "×";
console.log(`kernel ${kernel}, ${memGiB} GiB, Node ${process.version}; ${n} launches per round, ${concurrency} in flight, ${rounds} rounds in rotated order, medians (min–max)`);
if (arg("package")) console.log(`package: ${pkg}`);
for (const child of children) {
  const r = results[child];
  console.log(`\n${LABEL[child]}\n\n| way | main-thread CPU per launch | blocked per start call | write / read syscalls per launch | main-thread wake-ups per launch |`);
  console.log("|---|---|---|---|---|");
  for (const [name] of WAYS) {
    const { cpu, blocked } = r.range[name];
    const m = r[name];
    console.log(`| ${name} | ${us(m.cpuUs)} (${cpu[0].toFixed(0)}–${cpu[1].toFixed(0)}) | ${us(m.blockedUs)} (${blocked[0].toFixed(1)}–${blocked[1].toFixed(1)}) | ` +
      `${m.writes === null ? "–" : `${m.writes.toFixed(2)} / ${m.reads.toFixed(2)}`} | ${m.wakeups === null ? "–" : m.wakeups.toFixed(2)} |`);
  }
  const sh = r.spawnhost;
  const wh = r["worker host"];
  const cp = r.child_process;
  const target = child === "node" ? { cpu: 0.7, blocked: 0.5 } : { cpu: 0.3, blocked: 0.4 };
  console.log(`\nspawnhost / worker host: CPU ${x(sh.cpuUs, wh.cpuUs)} (target ≤ ${target.cpu}×), blocked ${x(sh.blockedUs, wh.blockedUs)} (target ≤ ${target.blocked}×)`);
  console.log(`spawnhost / child_process: CPU ${x(sh.cpuUs, cp.cpuUs)}, blocked ${x(sh.blockedUs, cp.blockedUs)} (1/${(cp.blockedUs / sh.blockedUs).toFixed(1)}${child === "true" ? "; target ≤ 1/15" : ""})`);
  const tr = r["spawnhost, trackEnv"];
  console.log(`spawnhost with trackEnv / worker host: CPU ${x(tr.cpuUs, wh.cpuUs)}, blocked ${x(tr.blockedUs, wh.blockedUs)}; ` +
    `the exact read of process.env in this run: ${us(sh.cpuUs - tr.cpuUs)} of CPU and ${us(sh.blockedUs - tr.blockedUs)} blocked per launch`);
}
console.log("\n| part of spawnhost's launch (each alone, tight loop) | CPU per call |\n|---|---|");
for (const [name, value] of parts) console.log(`| ${name} | ${us(value)} |`);
const whole = median(wholeCall.spawnhost);
console.log(`| the rest of the start call (promise, AsyncResource, id, queueing): the whole call less the three parts above | ${us(Math.max(0, whole - parts[0][1] - parts[1][1] - parts[2][1]))} |`);
console.log(`| **the whole start call** (CPU per call, ${rounds} bursts of 500 calls in one tick; worker host: ${us(median(wholeCall["worker host"]))}) | ${us(whole)} |`);
const sh = results[children[0]].spawnhost;
console.log(`| writes to the helper (one writev per tick, for every launch of that tick) | ${sh.writes === null ? "–" : `${sh.writes.toFixed(2)} per launch`} |`);
// On a loaded machine the blocked time above is mostly waiting for a CPU; this is not.
console.log(`\nthe start call's CPU, spawnhost / worker host: ${x(whole, median(wholeCall["worker host"]))}; ` +
  `without the environment read (trackEnv): ${x(whole - parts[0][1], median(wholeCall["worker host"]))}`);
