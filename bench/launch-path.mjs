#!/usr/bin/env node
// The launch path's cost on Node's thread: N execFile (and spawn + read to
// close) calls at concurrency C, side by side with child_process.execFile in the same
// run. Reports launches per second, main-thread CPU per launch (schedstat), and the
// time inside the start call (from the call to its synchronous return); then the
// latency of one launch at a time on an idle host (coalescing must not delay it).
//
// "null" rows use a helper started with SPAWNHOST_HELPER_NULL_LAUNCHER=1, which answers
// every launch as a child that exited 0 without creating a process: what is left is
// Node's own cost (and the helper's loop). Real rows launch /bin/true. "trackEnv" rows
// use the host option that re-reads process.env only after JavaScript wrote to it.
// The null launcher exists in a test build only (scripts/build-helper writes one to
// build/spawnhost-helper, the default here; a released helper ignores the switch).
// bench/start-call.mjs puts the same execFile calls beside the worker-thread
// host as well, and splits the start call into its parts.
//   node bench/launch-path.mjs [--n 2000] [--null-n 20000] [--concurrency 8,64] [--idle-n 1000]
//     [--package <path to another checkout's js/>] (to measure an older commit the same way)
import { execFile as cpExecFile } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { mainThreadCpuNs, machineLine } from "./lib/procfs.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const realN = Number(arg("n", 2000));
const nullN = Number(arg("null-n", 20000));
const idleN = Number(arg("idle-n", 1000));
const concurrencies = arg("concurrency", "8,64").split(",").map(Number);
const packagePath = arg("package", undefined);
// The checkout's test build, not a platform package's release helper (ignored by an
// older package that cannot be pointed at a helper).
process.env.SPAWNHOST_HELPER_PATH ??= resolve(packagePath ?? fileURLToPath(new URL("../js", import.meta.url)), "../build/spawnhost-helper");
const { ProcessHost } = await import(packagePath ? pathToFileURL(resolve(packagePath, "src/index.js")).href : "spawnhost");

// Starts `n` calls keeping `concurrency` in flight; `start` returns a promise.
async function run(n, concurrency, start) {
  let started = 0;
  let insideNs = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      const t0 = process.hrtime.bigint();
      const done = start();
      insideNs += Number(process.hrtime.bigint() - t0);
      await done;
    }
  };
  const cpu0 = mainThreadCpuNs();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: n / seconds, cpuUs: (mainThreadCpuNs() - cpu0) / 1000 / n, insideUs: insideNs / 1000 / n };
}

// One call at a time, each started from a fresh timer callback (an idle loop, no
// reply in the same tick to ride on): the latency from the call to its settling.
async function idleLatency(n, start) {
  const micros = [];
  for (let i = 0; i < n; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    const t0 = process.hrtime.bigint();
    await start();
    micros.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  micros.sort((a, b) => a - b);
  return { p50: micros[Math.floor(n / 2)], p99: micros[Math.floor(n * 0.99)] };
}

const cpExec = (file) => new Promise((resolve, reject) => cpExecFile(file, (error) => (error ? reject(error) : resolve())));
const spawnToClose = (host) => host.spawn("/bin/true", [], { stdio: ["ignore", "pipe", "pipe"] }).then((child) => new Promise((resolve) => {
  child.stdout.resume();
  child.stderr.resume();
  child.on("close", resolve);
}));

const real = new ProcessHost({ fallback: "error" });
await real.execFile("/bin/true");
// The helper reads it when it starts, which is at the host's first call.
process.env.SPAWNHOST_HELPER_NULL_LAUNCHER = "1";
const nullHost = new ProcessHost({ fallback: "error" });
await nullHost.execFile("/bin/true");
const trackedHost = new ProcessHost({ fallback: "error", trackEnv: true });
await trackedHost.execFile("/bin/true");
delete process.env.SPAWNHOST_HELPER_NULL_LAUNCHER;
// A helper without the switch launches for real (pid not 0): its "null" rows would lie.
if ((await nullHost.spawn("/bin/true")).pid !== 0) {
  console.error(`launch-path: ${process.env.SPAWNHOST_HELPER_PATH} has no null launcher: build a test build with scripts/build-helper`);
  process.exit(1);
}

const rows = [];
for (const concurrency of concurrencies) {
  const ways = [
    ["child_process.execFile /bin/true", realN, () => cpExec("/bin/true")],
    ["spawnhost execFile /bin/true", realN, () => real.execFile("/bin/true")],
    ["spawnhost execFile, null launcher", nullN, () => nullHost.execFile("/bin/true")],
    ["spawnhost execFile, null launcher, trackEnv", nullN, () => trackedHost.execFile("/bin/true")],
    ["spawnhost spawn + close, null launcher", nullN, () => spawnToClose(nullHost)],
    ["spawnhost spawn + close, null launcher, trackEnv", nullN, () => spawnToClose(trackedHost)],
  ];
  for (const [name, n, start] of ways) {
    await run(Math.min(n, 200), concurrency, start); // warm-up
    rows.push({ concurrency, name, n, ...(await run(n, concurrency, start)) });
  }
}
const idle = [
  ["child_process.execFile /bin/true", () => cpExec("/bin/true")],
  ["spawnhost execFile /bin/true", () => real.execFile("/bin/true")],
  ["spawnhost execFile, null launcher", () => nullHost.execFile("/bin/true")],
].map(([name, start]) => ({ name, start }));
for (const row of idle) Object.assign(row, await idleLatency(idleN, row.start));
await Promise.all([real.shutdown(), nullHost.shutdown(), trackedHost.shutdown()]);

console.log(machineLine());
if (packagePath) console.log(`package: ${resolve(packagePath)}`);
console.log("| concurrency | way | N | launches/s | main-thread CPU per launch | inside the start call |");
console.log("|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.concurrency} | ${r.name} | ${r.n} | ${r.perSecond.toFixed(0)} | ${r.cpuUs.toFixed(1)} µs | ${r.insideUs.toFixed(1)} µs |`);
}
for (const concurrency of concurrencies) {
  const cp = rows.find((r) => r.concurrency === concurrency && r.name.startsWith("child_process"));
  const sh = rows.find((r) => r.concurrency === concurrency && r.name === "spawnhost execFile /bin/true");
  console.log(`concurrency ${concurrency}: spawnhost/child_process launches/s ${(sh.perSecond / cp.perSecond).toFixed(2)}x, ` +
    `main-thread CPU per launch ${(sh.cpuUs / cp.cpuUs).toFixed(3)}x (1/${(cp.cpuUs / sh.cpuUs).toFixed(0)})`);
}
console.log(`\n| one launch at a time on an idle loop (N ${idleN}) | p50 latency | p99 latency |`);
console.log("|---|---|---|");
for (const r of idle) console.log(`| ${r.name} | ${r.p50.toFixed(0)} µs | ${r.p99.toFixed(0)} µs |`);
