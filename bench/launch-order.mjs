#!/usr/bin/env node
// Launch order: two launches made one after the other, `sh -c "echo A"` then
// `sh -c "echo B"`, and whose output Node sees first, through node:child_process and
// the drop-in (spawnhost/child_process), in alternating rounds of one run. Node's
// spawn() returns once its child exists, so B is created after A; the helper creates
// a launch after the one asked for before it (docs/decisions/launch-pool.md, "Launch order").
// Which child then writes first is the kernel scheduler's choice: B first counts the
// pairs where the later child's output came first.
//   node bench/launch-order.mjs [--pairs 40] [--rounds 3]
import * as childProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { loadavg } from "node:os";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const pairs = arg("pairs", 40);
const rounds = arg("rounds", 3);

async function bFirst(api) {
  let count = 0;
  for (let pair = 0; pair < pairs; pair++) {
    let first = null;
    const children = ["A", "B"].map((name) => {
      const child = api.spawn("sh", ["-c", `echo ${name}`]);
      child.stdout.once("data", () => (first ??= name));
      return child;
    });
    // Both ended before the next pair starts, so that pairs do not overlap.
    await Promise.all(children.map((child) => new Promise((done) => child.on("close", done))));
    if (first === "B") count++;
  }
  return count;
}

const counts = { "node:child_process": [], "spawnhost/child_process": [] };
for (let round = 0; round < rounds; round++) {
  counts["node:child_process"].push(await bFirst(childProcess));
  counts["spawnhost/child_process"].push(await bFirst(dropIn));
}
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}; ${pairs} pairs a round, ${rounds} rounds`);
console.log("| way | B's output first, per round |");
console.log("| --- | --- |");
for (const [way, list] of Object.entries(counts)) console.log(`| ${way} | ${list.map((c) => `${c}/${pairs}`).join(", ")} |`);
if (dropIn.stats().helper === 0) throw new Error("the drop-in's launches did not go through the helper");
