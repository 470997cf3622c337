#!/usr/bin/env node
// The launch path's cost on Node's thread (issue 15): N execFile (and spawn + read to
// close) calls at concurrency C, side by side with child_process.execFile in the same
// run. Reports launches per second, main-thread CPU per launch (schedstat), and the
// time inside the start call (from the call to its synchronous return).
//
// "null" rows use a helper started with SPAWNHOST_HELPER_NULL_LAUNCHER=1, which answers
// every launch as a child that exited 0 without creating a process: what is left is
// Node's own cost (and the helper's loop). Real rows launch /bin/true.
//   node bench/launch-path.mjs [--n 2000] [--null-n 20000] [--concurrency 8,64]
import { execFile as cpExecFile } from "node:child_process";
import { ProcessHost } from "spawnhost";
import { mainThreadCpuNs, machineLine } from "./lib/procfs.mjs";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const realN = Number(arg("n", 2000));
const nullN = Number(arg("null-n", 20000));
const concurrencies = arg("concurrency", "8,64").split(",").map(Number);

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
delete process.env.SPAWNHOST_HELPER_NULL_LAUNCHER;

const rows = [];
for (const concurrency of concurrencies) {
  const ways = [
    ["child_process.execFile /bin/true", realN, () => cpExec("/bin/true")],
    ["spawnhost execFile /bin/true", realN, () => real.execFile("/bin/true")],
    ["spawnhost execFile, null launcher", nullN, () => nullHost.execFile("/bin/true")],
    ["spawnhost spawn + close, null launcher", nullN, () => spawnToClose(nullHost)],
  ];
  for (const [name, n, start] of ways) {
    await run(Math.min(n, 200), concurrency, start); // warm-up
    rows.push({ concurrency, name, n, ...(await run(n, concurrency, start)) });
  }
}
await Promise.all([real.shutdown(), nullHost.shutdown()]);

console.log(machineLine());
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
