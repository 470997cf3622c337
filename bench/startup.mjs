#!/usr/bin/env node
// What spawnhost costs a Node process at start: plain `node`, `--import
// spawnhost/register`, `import "spawnhost/child_process"` and `import { ProcessHost }`,
// each for a process that launches nothing and for one that makes one
// execFile("/bin/true"), alternating in one run; medians, as ratios to plain node.
// CPU is the measured process's own (all its threads, from its start; the helper's is
// not in it), wall is its spawn to its exit as seen from here, RSS its peak.
// The parts: Node's start up to the script (`--import` runs there), the face's module
// load, and the first launch (for spawnhost: loading what launches, finding and starting
// the helper, the request).
//   node bench/startup.mjs [--runs 15]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { percentile } from "./lib/stats.mjs";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 15;
const script = fileURLToPath(new URL("./startup/process.mjs", import.meta.url));
const faces = {
  plain: [],
  register: ["--import", "spawnhost/register"],
  "drop-in": [],
  host: [],
};

function measure(face, launches) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [...faces[face], script, face, String(launches)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${face}: exit ${code}`));
      resolve({ ...JSON.parse(out), wallMs: performance.now() - t0 });
    });
  });
}

const samples = {};
for (let run = 0; run < runs; run++) {
  for (const launches of [0, 1]) {
    for (const face of Object.keys(faces)) {
      const key = `${face}/${launches}`;
      (samples[key] ??= []).push(await measure(face, launches));
    }
  }
}

const med = (key, field) => percentile(samples[key].map((s) => s[field]), 50);
const fmt = (n, digits = 0) => n.toFixed(digits);
console.log(`node ${process.version}, ${runs} alternating runs, medians`);
for (const launches of [0, 1]) {
  console.log(`\n${launches ? "one execFile(\"/bin/true\")" : "launches nothing"}:`);
  console.log("| process | CPU ms | × plain | wall ms | × plain | peak RSS MB | + plain | before script ms | module load ms | first launch ms |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  const plain = `plain/${launches}`;
  for (const face of Object.keys(faces)) {
    const key = `${face}/${launches}`;
    console.log(`| ${face} | ${fmt(med(key, "cpuMs"))} | ${fmt(med(key, "cpuMs") / med(plain, "cpuMs"), 2)} | ${fmt(med(key, "wallMs"))} | ${fmt(med(key, "wallMs") / med(plain, "wallMs"), 2)} | ${fmt(med(key, "maxRssKb") / 1024, 1)} | ${fmt((med(key, "maxRssKb") - med(plain, "maxRssKb")) / 1024, 1)} | ${fmt(med(key, "beforeScriptMs"), 1)} | ${fmt(med(key, "loadMs"), 1)} | ${fmt(med(key, "firstLaunchMs"), 1)} |`);
  }
}
