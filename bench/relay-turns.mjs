#!/usr/bin/env node
// What the relay's turn per stream costs (helper/frame-dispatch.js
// leaves the rest of a read for the next loop turn when it holds another stream's data).
// Two children, each read to its end by a consumer that counts bytes, by
// node:child_process and by spawnhost/child_process in this one process, in rotated
// order, medians over rounds:
//   stdout       `cat` of a file: one stream, no turn is ever split (the common case)
//   interleaved  the same file to stdout and to stderr at once: the worst case, the
//                helper's reads alternate streams and nearly every read is split
// Reports MB/s and Node's CPU per GiB. Run with SPAWNHOST_STREAMS=relay (or in a worker
// thread) for the relay: node bench/relay-turns.mjs [--mib 256] [--rounds 5]
import { spawn as nodeSpawn } from "node:child_process";
import { writeFileSync, rmSync, mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn as dropInSpawn, stats } from "spawnhost/child_process";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const mib = arg("mib", 256);
const rounds = arg("rounds", 5);
const dir = mkdtempSync(join(tmpdir(), "relay-turns-"));
const file = join(dir, "data");
writeFileSync(file, Buffer.alloc(mib * 1024 * 1024, 120));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const shapes = {
  stdout: ["cat", [file]],
  interleaved: ["sh", ["-c", `cat "${file}" & cat "${file}" >&2; wait`]],
};
const ways = { child_process: nodeSpawn, spawnhost: dropInSpawn };

async function once(spawn, [command, args]) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const child = spawn(command, args);
  let bytes = 0;
  const count = (chunk) => { bytes += chunk.length; };
  child.stdout.on("data", count);
  child.stderr.on("data", count);
  await new Promise((resolve) => child.once("close", resolve));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { mbs: bytes / 1e6 / seconds, cpuPerGiB: ((used.user + used.system) / 1000) * (2 ** 30 / bytes) };
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const load0 = loadavg();
await once(dropInSpawn, ["true", []]);
const results = {};
for (let round = 0; round < rounds; round++) {
  const names = Object.keys(ways);
  const rotated = names.map((_, i) => names[(i + round) % names.length]);
  for (const [shape, command] of Object.entries(shapes)) {
    for (const name of rotated) ((results[shape] ??= {})[name] ??= []).push(await once(ways[name], command));
  }
}
console.log(`relay-turns: ${mib} MiB per stream, ${rounds} rounds, SPAWNHOST_STREAMS=${process.env.SPAWNHOST_STREAMS ?? ""}, load ${load0.map((l) => l.toFixed(2)).join(" ")} -> ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("| | child_process MB/s | spawnhost MB/s | ratio | child_process CPU/GiB | spawnhost CPU/GiB | ratio |");
console.log("|---|---|---|---|---|---|---|");
for (const [shape, byWay] of Object.entries(results)) {
  const [node, host] = [byWay.child_process, byWay.spawnhost];
  const [nodeMbs, hostMbs] = [median(node.map((r) => r.mbs)), median(host.map((r) => r.mbs))];
  const [nodeCpu, hostCpu] = [median(node.map((r) => r.cpuPerGiB)), median(host.map((r) => r.cpuPerGiB))];
  console.log(`| ${shape} | ${nodeMbs.toFixed(0)} | ${hostMbs.toFixed(0)} | ${(hostMbs / nodeMbs).toFixed(2)}× | ${nodeCpu.toFixed(0)} ms | ${hostCpu.toFixed(0)} ms | ${(hostCpu / nodeCpu).toFixed(2)}× |`);
}
console.log(`helper launches ${stats().helper}, fallbacks ${stats().fallback}`);
