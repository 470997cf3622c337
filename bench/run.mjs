#!/usr/bin/env node
// spawnhost benchmarks: every suite runs each way (node:child_process, the
// worker-thread host in worker-host.mjs, spawnhost's helper) in the same run, one
// fresh Node process per way, and prints markdown tables and writes SVG charts.
//
//   node bench/run.mjs --quick                 short event-loop demo (< 1 minute)
//   node bench/run.mjs                         all suites
//   node bench/run.mjs --suite event-loop,throughput --n 200 --concurrency 8
//   node bench/run.mjs --suite big-parent --ballast-gib 0,1,4
//   node bench/run.mjs --ways child_process,worker-host   (without the helper)
//
// Exits non-zero if any launch fails.
import { parseArgs } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";
import { spawnCell } from "./lib/spawn-cell.mjs";
import { ALL_WAYS, KNOWN_WAYS } from "./lib/ways.mjs";
import { machineLine } from "./lib/procfs.mjs";

const SUITES = ["event-loop", "throughput", "big-parent", "http", "long-lived"];
const HERE = fileURLToPath(new URL(".", import.meta.url));

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    suite: { type: "string" },
    ways: { type: "string" },
    n: { type: "string" },
    concurrency: { type: "string" },
    "ballast-gib": { type: "string" },
    children: { type: "string" },
    requests: { type: "string" },
    out: { type: "string", default: join(HERE, "out") },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (flags.help) {
  console.log(`usage: node bench/run.mjs [--quick] [--suite ${SUITES.join(",")}]
  [--ways ${KNOWN_WAYS.join(",")}] [--n N] [--concurrency C]
  [--ballast-gib 0,1,4] [--children 1000] [--requests 400] [--out DIR]`);
  process.exit(0);
}

const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);
const suites = flags.suite ? list(flags.suite) : flags.quick ? ["event-loop"] : SUITES;
const ways = flags.ways ? list(flags.ways) : ALL_WAYS;
for (const s of suites) if (!SUITES.includes(s)) fail(`unknown suite ${s}; expected ${SUITES.join(", ")}`);
for (const w of ways) if (!KNOWN_WAYS.includes(w)) fail(`unknown way ${w}; expected ${KNOWN_WAYS.join(", ")}`);

const params = {};
if (flags.quick) params.n = 40;
if (flags.n) params.n = Number(flags.n);
if (flags.concurrency) params.concurrency = Number(flags.concurrency);
if (flags["ballast-gib"]) params.ballastList = list(flags["ballast-gib"]).map(Number);
if (flags.children) params.children = Number(flags.children);
if (flags.requests) params.requests = Number(flags.requests);

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(2);
}

/** Runs each way's cell one after the other: { [way]: result }. */
async function simpleDrive({ suite, ways, params }) {
  const results = {};
  for (const way of ways) {
    process.stderr.write(`  ${suite}: ${way} ...\n`);
    results[way] = await spawnCell(suite, way, params).result;
  }
  return results;
}

const { kernel, memGiB } = machineLine();
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const command = `node bench/run.mjs ${process.argv.slice(2).join(" ")}`.trim();
mkdirSync(flags.out, { recursive: true });
console.log(`# spawnhost benchmarks\n`);
console.log(`- command: \`${command}\``);
console.log(
  `- machine: ${availableParallelism()} CPUs, ${memGiB} GiB, Linux ${kernel}, Node ${process.version}; ${new Date().toISOString()}`,
);
console.log(`- ways: ${ways.join(", ")}; each in a fresh Node process, one after the other\n`);

const saved = { command, kernel, node: process.version, cpus: availableParallelism(), date: new Date().toISOString(), suites: {} };
let failed = false;
for (const suite of suites) {
  const mod = await import(`./suites/${suite}.mjs`);
  const suiteParams = { ...mod.defaults, ...params };
  process.stderr.write(`suite ${suite}\n`);
  let results;
  try {
    results = await (mod.drive ?? simpleDrive)({ suite, ways, params: suiteParams, spawnCell });
  } catch (error) {
    console.error(`bench: suite ${suite} failed: ${error.message}`);
    failed = true;
    continue;
  }
  const { markdown, charts = [] } = mod.report(results, ways, suiteParams);
  console.log(`## ${suite}\n\n${markdown}\n`);
  for (const chart of charts) {
    const path = join(flags.out, `${chart.name}-${stamp}.svg`);
    writeFileSync(path, chart.svg);
    console.log(`chart: ${relative(process.cwd(), path) || path}\n`);
  }
  saved.suites[suite] = { params: suiteParams, results };
}
const jsonPath = join(flags.out, `results-${stamp}.json`);
writeFileSync(jsonPath, JSON.stringify(saved, (k, v) => (k === "timeline" ? undefined : v), 1));
console.log(`raw results: ${relative(process.cwd(), jsonPath)}`);
process.exit(failed ? 1 : 0);
