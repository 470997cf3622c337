#!/usr/bin/env node
// A Windows child's stdio throughput, with Windows node.exe: the
// helper relaying every byte (SPAWNHOST_STREAMS=relay) against the hand-over on Node's
// own named pipes (SPAWNHOST_STREAMS=handover, js/src/helper/stream-pipes.js), and
// node:child_process, all in the same run. The child is the mingw fixture
// (tests/windows/fixtures/fixture.c), so no Node start-up is in the timings:
//   stdout  `fixture out BYTES`: spawn to 'close', every byte read by Node
//   stdin   `fixture cat`, stdout ignored: BYTES written with 'drain' honoured, spawn to 'close'
// Rounds rotate the ways' order; medians are reported, as MB/s and as ratios to child_process,
// with the CPU time of Node's whole process per MiB (process.cpuUsage: Windows Node has no
// per-thread figure; the helper's and the child's CPU are not in it).
//   wine node.exe bench/windows-streams.mjs [--mib 64] [--rounds 5] [--fixture PATH]
// (SPAWNHOST_HELPER_PATH names the Windows helper; SPAWNHOST_WIN_FIXTURE the fixture.)
import { spawn } from "node:child_process";
import net from "node:net";
import { ProcessHost } from "spawnhost";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const bytes = Number(arg("mib", 64)) * 1024 * 1024;
const rounds = Number(arg("rounds", 5));
const fixture = arg("fixture", process.env.SPAWNHOST_WIN_FIXTURE);
const helperPath = process.env.SPAWNHOST_HELPER_PATH;
if (process.platform !== "win32" || !fixture || !helperPath) {
  console.error("run with Windows node.exe, SPAWNHOST_HELPER_PATH and SPAWNHOST_WIN_FIXTURE (or --fixture) set");
  process.exit(2);
}

// One host per way of carrying the streams: the choice is read when a helper starts
// (info() starts it).
async function hostWith(streams) {
  process.env.SPAWNHOST_STREAMS = streams;
  const host = new ProcessHost({ helperPath, fallback: "error" });
  await host.info();
  delete process.env.SPAWNHOST_STREAMS;
  return host;
}
const relay = await hostWith("relay");
const handover = await hostWith("handover");
const ways = {
  child_process: spawn,
  "spawnhost relay": (...a) => relay.spawn(...a),
  "spawnhost handover": (...a) => handover.spawn(...a),
};

function closed(child) {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}`))));
  });
}

async function stdout(launch) {
  const t0 = performance.now(), c0 = process.cpuUsage();
  const child = await launch(fixture, ["out", String(bytes)], { stdio: ["ignore", "pipe", "ignore"] });
  let read = 0;
  child.stdout.on("data", (chunk) => { read += chunk.length; });
  await closed(child);
  if (read !== bytes) throw new Error(`read ${read} of ${bytes} bytes`);
  return { ms: performance.now() - t0, cpu: process.cpuUsage(c0) };
}

const block = Buffer.alloc(64 * 1024, "x");
async function stdin(launch) {
  const t0 = performance.now(), c0 = process.cpuUsage();
  const child = await launch(fixture, ["cat"], { stdio: ["pipe", "ignore", "ignore"] });
  const done = closed(child);
  for (let sent = 0; sent < bytes; sent += block.length) {
    if (!child.stdin.write(block)) await new Promise((resolve) => child.stdin.once("drain", resolve));
  }
  child.stdin.end();
  await done;
  return { ms: performance.now() - t0, cpu: process.cpuUsage(c0) };
}

// Each way loads the fixture once before anything is timed; and is what it says it is.
for (const [name, launch] of Object.entries(ways)) {
  const child = await launch(fixture, ["cat"], { stdio: ["pipe", "ignore", "ignore"] });
  const own = child.stdin instanceof net.Socket;
  if (own !== (name !== "spawnhost relay")) throw new Error(`${name}: stdin is ${own ? "" : "not "}a socket of Node's`);
  child.stdin.end();
  await closed(child);
}

const names = Object.keys(ways);
const times = { stdout: {}, stdin: {} };
for (let round = 0; round < rounds; round++) {
  const order = names.map((_, k) => names[(k + round) % names.length]);
  for (const [test, run] of [["stdout", stdout], ["stdin", stdin]]) {
    for (const name of order) (times[test][name] ??= []).push(await run(ways[name]));
  }
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const mbps = (ms) => bytes / 1e6 / (ms / 1000);
const cpuMsPerMiB = ({ cpu }) => (cpu.user + cpu.system) / 1000 / (bytes / 1048576);
console.log(`Windows Node ${process.version}, ${bytes / 1048576} MiB per child, ${rounds} rounds, medians`);
// The best round too: on a shared machine most rounds are slowed by others' work, and
// the least disturbed one shows what the way itself costs.
console.log("| stream | way | median MB/s | median vs child_process | best MB/s | best vs child_process | Node process CPU ms/MiB | all rounds, MB/s |");
console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
for (const test of ["stdout", "stdin"]) {
  const base = mbps(median(times[test].child_process.map(({ ms }) => ms)));
  const bestBase = mbps(Math.min(...times[test].child_process.map(({ ms }) => ms)));
  for (const name of names) {
    const runs = times[test][name];
    const rate = mbps(median(runs.map(({ ms }) => ms)));
    const best = mbps(Math.min(...runs.map(({ ms }) => ms)));
    const all = runs.map(({ ms }) => mbps(ms).toFixed(0)).join(", ");
    console.log(`| ${test} | ${name} | ${rate.toFixed(1)} | ${(rate / base).toFixed(2)}× | ${best.toFixed(1)} | ${(best / bestBase).toFixed(2)}× | ${median(runs.map(cpuMsPerMiB)).toFixed(2)} | ${all} |`);
  }
}
await Promise.all([relay.shutdown(), handover.shutdown()]);
