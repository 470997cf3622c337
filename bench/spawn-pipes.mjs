// The per-launch cost of `spawn` with three pipes: `/bin/true` spawned with
// the default stdio ("pipe") and with stdio "ignore", each child's close awaited, at
// concurrency 8, by child_process and by two ProcessHosts in the same run (one whose
// helper hands the streams over, one started with SPAWNHOST_STREAMS=relay), rotated
// over rounds; medians of launches/s, of Node CPU and of the helper's CPU per launch
// (from /proc). "pipe" minus
// "ignore" is what the three pipes cost Node: child_process's figure is what Node's own
// Pipe handles cost, the bound for the hand-over's.
//   node bench/spawn-pipes.mjs [--n 1000] [--rounds 3]
import * as childProcess from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import { ProcessHost } from "spawnhost";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = arg("n", 1000);
const rounds = arg("rounds", 3);
const concurrency = 8;

const closed = (child) => new Promise((resolve) => {
  child.stdout?.resume();
  child.stderr?.resume();
  child.on("close", resolve);
});

// The helper's CPU time so far, in µs (Linux's /proc; 0 where there is none).
function helperCpuUs(host) {
  const pid = host?.stats().helperPid;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

async function run(spawn, host) {
  let next = 0;
  const helperBefore = helperCpuUs(host);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next++ < n) await closed(await spawn());
  }));
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { perSecond: (n / ms) * 1000, cpuUsPerLaunch: (used.user + used.system) / n, helperUsPerLaunch: (helperCpuUs(host) - helperBefore) / n };
}

// The helper reads SPAWNHOST_STREAMS when it starts: each host's first spawn starts it.
async function startedHost(streams) {
  const saved = process.env.SPAWNHOST_STREAMS;
  if (streams) process.env.SPAWNHOST_STREAMS = streams;
  else delete process.env.SPAWNHOST_STREAMS;
  const host = new ProcessHost({ mode: "helper", fallback: "error" });
  await closed(await host.spawn("/bin/true"));
  if (saved === undefined) delete process.env.SPAWNHOST_STREAMS;
  else process.env.SPAWNHOST_STREAMS = saved;
  return host;
}

const handedOver = await startedHost(null);
const relayed = await startedHost("relay");
const hosts = { "spawnhost handed over": handedOver, "spawnhost relayed": relayed };
const ways = {};
for (const stdio of ["pipe", "ignore"]) {
  ways[`child_process ${stdio}`] = { spawn: () => childProcess.spawn("/bin/true", [], { stdio }) };
  for (const [name, host] of Object.entries(hosts)) ways[`${name} ${stdio}`] = { spawn: () => host.spawn("/bin/true", [], { stdio }), host };
}
const results = Object.fromEntries(Object.keys(ways).map((way) => [way, []]));
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(ways);
  const order = round % 2 ? names.reverse() : names;
  for (const way of order) results[way].push(await run(ways[way].spawn, ways[way].host));
}
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cpu = (way) => median(results[way].map((x) => x.cpuUsPerLaunch));
console.log(`spawn of /bin/true, n=${n} per way at concurrency ${concurrency}, ${rounds} rounds; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("way: launches/s with pipes | Node CPU per launch: pipes, ignore, what the three pipes cost | helper CPU per launch with pipes");
for (const way of ["child_process", ...Object.keys(hosts)]) {
  const rate = median(results[`${way} pipe`].map((x) => x.perSecond));
  const [pipe, ignore] = [cpu(`${way} pipe`), cpu(`${way} ignore`)];
  const helper = hosts[way] ? ` | ${median(results[`${way} pipe`].map((x) => x.helperUsPerLaunch)).toFixed(0)} µs` : "";
  console.log(`${way}: ${rate.toFixed(0)} launches/s | ${pipe.toFixed(0)} µs, ${ignore.toFixed(0)} µs, ${(pipe - ignore).toFixed(0)} µs${helper}`);
}
await Promise.all(Object.values(hosts).map((host) => host.shutdown()));
