#!/usr/bin/env node
// Fork IPC round trips on Windows Node: ProcessHost.fork through the Windows
// helper (a relayed channel in libuv's framing, docs/architecture.md) against
// node:child_process.fork, in the same run, for both serializations. A parent sends a
// message, an echo child sends it back, N times in sequence.
//
// Under wine on a shared machine one round trip costs milliseconds of scheduling that
// come and go (bench/RESULTS.md, "fork() round trips with Windows Node under wine"), so
// this runs R rounds, alternating which way goes first, and reports per serialization
// the median rate of each way and the median of the per-round ratios, with their range.
// Each round forks a fresh child per way and warms it up before the clock starts.
//   node bench/windows-ipc.mjs [--n 1000] [--rounds 5] [--helper PATH]
// On Windows Node under wine, from the repository (stdout to a file: wine's node.exe
// cannot write to a Linux pipe):
//   WINEDEBUG=-all wine node.exe bench/windows-ipc.mjs --helper Z:\...\spawnhost-helper.exe > out.txt
import { fork } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./lib/stats.mjs";
import { ProcessHost } from "../js/src/index.js";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};
const n = Number(arg("n", 1000));
const rounds = Number(arg("rounds", 5));
const helper = arg("helper", process.env.SPAWNHOST_HELPER_PATH ?? "");
const warmUp = Math.min(100, n);
const dir = mkdtempSync(join(tmpdir(), "spawnhost-windows-ipc-"));
const echo = join(dir, "echo.cjs");
writeFileSync(echo, 'process.on("message", (m) => process.send(m));');

// silent: the children's stdio piped (the helper cannot inherit Node's stdio under wine).
const host = new ProcessHost({ mode: "helper", fallback: "error", ...(helper && { helperPath: helper }) });
const ways = {
  "child_process.fork": (serialization) => fork(echo, [], { silent: true, serialization }),
  "ProcessHost.fork (helper)": (serialization) => host.fork(echo, [], { silent: true, serialization }),
};

async function roundTrips(child, count) {
  const message = { seq: 0, text: "ping", list: [1, 2, 3] };
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    message.seq = i;
    const reply = new Promise((resolve) => child.once("message", resolve));
    child.send(message);
    if ((await reply).seq !== i) throw new Error(`reply ${i} out of order`);
  }
  return count / ((performance.now() - t0) / 1000);
}

async function measure(name, serialization) {
  const child = await ways[name](serialization);
  await roundTrips(child, warmUp);
  const rate = await roundTrips(child, n);
  const exited = child.exitCode !== null ? null : new Promise((resolve) => child.once("exit", resolve));
  child.disconnect();
  await exited;
  return rate;
}

const names = Object.keys(ways);
const results = { json: [], advanced: [] };  // per round: { [way]: rate }
for (let round = 0; round < rounds; round++) {
  for (const serialization of Object.keys(results)) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    const rates = {};
    for (const name of order) rates[name] = await measure(name, serialization);
    results[serialization].push(rates);
  }
}
await host.shutdown();

const median = (values) => percentile(values, 50);
console.log(`- command: \`node bench/windows-ipc.mjs --n ${n} --rounds ${rounds}\` (echo child, ${warmUp} warm-up round trips a child)`);
console.log(`- machine: ${process.platform}-${process.arch}, ${cpus().length} CPUs, Node ${process.version}; ${new Date().toISOString()}`);
console.log("");
console.log("| serialization | way | round trips/s, median (min–max) | vs child_process.fork, median of rounds (min–max) |");
console.log("| --- | --- | --- | --- |");
for (const [serialization, perRound] of Object.entries(results)) {
  for (const name of names) {
    const rates = perRound.map((r) => r[name]);
    const ratios = perRound.map((r) => r[name] / r["child_process.fork"]);
    const range = (values, digits) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
    console.log(`| ${serialization} | ${name} | ${Math.round(median(rates))} (${range(rates, 0)}) | ${median(ratios).toFixed(2)}× (${range(ratios, 2)}) |`);
  }
}
