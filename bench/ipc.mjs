#!/usr/bin/env node
// IPC round trips: child_process.fork against spawnhost's fork (inline and helper
// modes), in the same run. A parent sends a message, the child echoes it, N times in
// sequence, for both serializations. Reports round trips per second and the calling
// thread's CPU per round trip (main-thread utime+stime from /proc).
//   node bench/ipc.mjs [--n 10000] [--silent]
import { fork } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProcessHost } from "spawnhost";

const n = Number(process.argv[process.argv.indexOf("--n") + 1]) || 10_000;
// --silent: the children's stdio piped, not inherited (Windows Node under wine, where
// the helper cannot inherit Node's stdio: EBADF, docs/architecture.md).
const options = process.argv.includes("--silent") ? { silent: true } : {};
const dir = mkdtempSync(join(tmpdir(), "spawnhost-ipc-bench-"));
const echo = join(dir, "echo.cjs");
writeFileSync(echo, 'process.on("message", (m) => process.send(m));');

// Without /proc (Windows Node), the whole process's CPU (process.cpuUsage), which
// also counts libuv's threads: the column then says "process CPU".
const threadCpu = existsSync(`/proc/self/task/${process.pid}/stat`);
const ticks = threadCpu
  ? () => {
      const f = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
      return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (10 ms)
    }
  : () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 10_000; // µs, in the same 10 ms ticks
    };

async function roundTrips(child) {
  const message = { seq: 0, text: "ping", list: [1, 2, 3] };
  const t0 = performance.now(), c0 = ticks();
  for (let i = 0; i < n; i++) {
    message.seq = i;
    const reply = new Promise((resolve) => child.once("message", resolve));
    child.send(message);
    if ((await reply).seq !== i) throw new Error(`reply ${i} out of order`);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: n / seconds, cpuUs: ((ticks() - c0) * 10_000) / n };
}

const ways = {
  "child_process.fork": (serialization) => fork(echo, [], { ...options, serialization }),
  "spawnhost inline": (serialization, hosts) => hosts.inline.fork(echo, [], { ...options, serialization }),
  "spawnhost helper": (serialization, hosts) => hosts.helper.fork(echo, [], { ...options, serialization }),
};
const hosts = { inline: new ProcessHost({ mode: "inline" }), helper: new ProcessHost({ fallback: "error" }) };
const rows = [];
for (const serialization of ["json", "advanced"]) {
  for (const [name, start] of Object.entries(ways)) {
    const child = await start(serialization, hosts);
    await roundTrips(child); // warm-up round, not reported
    const result = await roundTrips(child);
    child.disconnect();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    rows.push({ serialization, name, ...result });
  }
}
await hosts.helper.shutdown();
await hosts.inline.shutdown();

const base = (s) => rows.find((r) => r.serialization === s && r.name === "child_process.fork");
console.log(`## IPC round trips (${n} sequential, echo child)\n`);
console.log(`| serialization | way | round trips/s | ${threadCpu ? "calling-thread" : "process"} CPU per round trip | rate vs child_process.fork |`);
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows) {
  console.log(`| ${r.serialization} | ${r.name} | ${Math.round(r.perSecond)} | ${r.cpuUs.toFixed(0)} µs | ${(r.perSecond / base(r.serialization).perSecond).toFixed(2)}× |`);
}
console.log(`\nmachine: ${(await import("node:os")).cpus().length} cores, node ${process.version}, load ${(await import("node:os")).loadavg().map((x) => x.toFixed(2)).join(" ")}`);
