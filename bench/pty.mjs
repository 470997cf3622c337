#!/usr/bin/env node
// spawnhost/pty against @lydell/node-pty (prebuilt node-pty; a devDependency of the
// workspace, for this bench only), in one run, rounds alternating between the two:
//   spawn:      Node's thread blocked per terminal spawn (the synchronous spawn() call:
//               node-pty forks Node there), with --ballast-gib GiB of live Buffers in
//               the parent (default 1): target <= 1/20 of node-pty's;
//   throughput: `cat` of --mb MB (default 200) through the terminal, Buffers, from spawn
//               to exit: target >= 0.9x node-pty's rate;
//   prompt:     spawn to an interactive shell's first prompt byte: target no worse.
// SPAWNHOST_STREAMS=relay measures spawnhost with the helper relaying the master. Only
// the spawn suite allocates the ballast; run the others in a process of their own.
//   node bench/pty.mjs [--suite spawn|throughput|prompt] [--rounds N] [--ballast-gib G] [--mb M] [--read-pid]
// --read-pid: each spawn's blocked time includes reading `pid` right after it.
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import * as spawnhostPty from "spawnhost/pty";
import { allocateBallast } from "./lib/ballast.mjs";
import { percentile, ms, table } from "./lib/stats.mjs";

const nodePty = createRequire(import.meta.url)("@lydell/node-pty");
const { values: args } = parseArgs({ options: {
  suite: { type: "string", default: "spawn,throughput,prompt" },
  rounds: { type: "string", default: "" },
  "ballast-gib": { type: "string", default: "1" },
  mb: { type: "string", default: "200" },
  "read-pid": { type: "boolean", default: false },
} });
const suites = args.suite.split(",");
const ways = [
  { name: `spawnhost/pty (${process.env.SPAWNHOST_STREAMS === "relay" ? "relayed" : "handed over"})`, spawn: spawnhostPty.spawn },
  { name: "@lydell/node-pty", spawn: nodePty.spawn },
];

// Spawns, and resolves on exit with what was seen: { bytes, firstByteMs, totalMs, blockedMs }.
function run(way, file, argv, options = {}) {
  return new Promise((resolve) => {
    let bytes = 0;
    let firstByteMs = null;
    const t0 = performance.now();
    const term = way.spawn(file, argv, { cols: 80, rows: 24, ...options });
    // --read-pid: the pid read at once too, as terminal hosts do (spawnhost asks the helper).
    if (args["read-pid"] && !(term.pid > 0)) throw new Error(`${way.name}: no pid at once`);
    const blockedMs = performance.now() - t0;
    term.onData((data) => {
      if (firstByteMs === null) firstByteMs = performance.now() - t0;
      bytes += data.length;
      options.onData?.(term, data);
    });
    term.onExit(() => resolve({ bytes, firstByteMs, totalMs: performance.now() - t0, blockedMs }));
  });
}

async function alternate(rounds, each) {
  // Not measured: spawnhost starts its helper, node-pty loads its addon.
  for (const way of ways) await run(way, "true", []);
  const results = ways.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) results[k].push(await each(ways[k]));
  }
  return results;
}

const report = (title, header, rows, note) => {
  console.log(`\n${title}\n`);
  console.log(table(header, rows));
  if (note) console.log(`\n${note}`);
};

if (suites.includes("spawn")) {
  const gib = Number(args["ballast-gib"]);
  allocateBallast(gib);
  const rounds = Number(args.rounds || 40);
  const results = await alternate(rounds, (way) => run(way, "true", []));
  const medians = results.map((list) => percentile(list.map((x) => x.blockedMs), 50));
  report(`spawn: Node's thread blocked in spawn("true"), ${gib} GiB of Buffers live, ${rounds} each`,
    ["way", "median", "p90", "max"],
    results.map((list, k) => [ways[k].name, ms(medians[k]), ms(percentile(list.map((x) => x.blockedMs), 90)), ms(Math.max(...list.map((x) => x.blockedMs)))]),
    `spawnhost/node-pty blocked time: ${(medians[0] / medians[1]).toFixed(3)} (target <= 0.05)`);
}

if (suites.includes("throughput")) {
  const mb = Number(args.mb);
  const dir = mkdtempSync(join(tmpdir(), "spawnhost-pty-bench-"));
  const file = join(dir, "data.txt");
  const line = Buffer.from(`${"x".repeat(99)}\n`);
  const block = Buffer.concat(Array.from({ length: 10000 }, () => line)); // 1 MB
  const fd = openSync(file, "w");
  for (let i = 0; i < mb; i++) writeSync(fd, block);
  closeSync(fd);
  const rounds = Number(args.rounds || 5);
  const results = await alternate(rounds, (way) => run(way, "cat", [file], { encoding: null }));
  rmSync(dir, { recursive: true, force: true });
  const rate = (x) => x.bytes / 1e6 / (x.totalMs / 1000);
  const medians = results.map((list) => percentile(list.map(rate), 50));
  const expected = mb * 1e6 * 1.01; // ONLCR: each "\n" arrives as "\r\n"
  report(`throughput: cat of ${mb} MB through the terminal, spawn to exit, ${rounds} each`,
    ["way", "median MB/s", "min", "max", "bytes short of the file (worst round)"],
    results.map((list, k) => [ways[k].name, medians[k].toFixed(0), Math.min(...list.map(rate)).toFixed(0), Math.max(...list.map(rate)).toFixed(0), String(Math.max(...list.map((x) => expected - x.bytes)))]),
    `spawnhost/node-pty throughput: ${(medians[0] / medians[1]).toFixed(2)}x (target >= 0.9)`);
}

if (suites.includes("prompt")) {
  const rounds = Number(args.rounds || 20);
  const env = { ...process.env, PS1: "$ ", HISTFILE: "/dev/null" };
  const results = await alternate(rounds, (way) => run(way, "bash", ["--norc", "--noprofile", "-i"], {
    env,
    onData: (term, data) => {
      if (!term.exiting) {
        term.exiting = true;
        term.write("exit\r");
      }
    },
  }));
  const medians = results.map((list) => percentile(list.map((x) => x.firstByteMs), 50));
  report(`prompt: spawn of an interactive bash to its first byte, ${rounds} each`,
    ["way", "median", "p90"],
    results.map((list, k) => [ways[k].name, ms(medians[k]), ms(percentile(list.map((x) => x.firstByteMs), 90))]),
    `spawnhost/node-pty time to prompt: ${(medians[0] / medians[1]).toFixed(2)} (target <= 1)`);
}
process.exit(0);
