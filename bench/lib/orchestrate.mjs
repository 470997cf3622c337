// The shared command line of bench/run.mjs and bench/flow.mjs: parse flags, run
// each suite for each way in fresh processes, print markdown, write charts and
// the raw numbers to the output folder.
import { parseArgs } from "node:util";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join, relative } from "node:path";
import { execFileSync } from "node:child_process";
import { spawnCell } from "./spawn-cell.mjs";
import { ALL_WAYS, KNOWN_WAYS } from "./ways.mjs";
import { machineLine } from "./procfs.mjs";

const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(2);
}

/** The commit the package was measured at, and whether js/ or helper/ had local edits. */
function revision() {
  try {
    const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const head = git("rev-parse", "--short", "HEAD");
    const dirty = git("status", "--porcelain", "--", "js", "helper");
    return dirty ? `${head} with uncommitted changes in js/ or helper/` : head;
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** Element-wise median of equally shaped results; non-numbers come from the first. */
function medianMerge(list) {
  const [first] = list;
  if (list.length === 1) return first;
  if (typeof first === "number") {
    const sorted = list.filter((v) => typeof v === "number").sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)];
  }
  if (first && typeof first === "object" && !Array.isArray(first)) {
    const out = {};
    for (const key of Object.keys(first)) out[key] = medianMerge(list.map((item) => item?.[key]));
    return out;
  }
  return first; // arrays (timelines) and the rest: the first round's
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

/**
 * script: the entry's name for messages; suites: names it accepts; defaultSuites;
 * quick: suites and params for --quick; usage: extra help text; outDir.
 */
export async function main({ script, suites: known, defaultSuites, quick, usage, outDir }) {
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
      launches: { type: "string" },
      repeat: { type: "string", default: "1" },
      out: { type: "string", default: outDir },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (flags.help) {
    console.log(usage);
    process.exit(0);
  }
  const suites = flags.suite ? list(flags.suite) : flags.quick ? quick.suites : defaultSuites;
  const ways = flags.ways ? list(flags.ways) : ALL_WAYS;
  for (const s of suites) if (!known.includes(s)) fail(`unknown suite ${s}; expected ${known.join(", ")}`);
  for (const w of ways) if (!KNOWN_WAYS.includes(w)) fail(`unknown way ${w}; expected ${KNOWN_WAYS.join(", ")}`);

  const params = flags.quick ? { ...quick.params } : {};
  if (flags.n) params.n = Number(flags.n);
  if (flags.concurrency) params.concurrency = Number(flags.concurrency);
  if (flags["ballast-gib"]) params.ballastList = list(flags["ballast-gib"]).map(Number);
  if (flags.children) params.children = Number(flags.children);
  if (flags.requests) params.requests = Number(flags.requests);
  if (flags.launches) params.launches = Number(flags.launches);

  const { kernel, memGiB } = machineLine();
  const date = new Date().toISOString();
  const stamp = date.replace(/[:.]/g, "-");
  const command = `node bench/${script} ${process.argv.slice(2).join(" ")}`.trim();
  mkdirSync(flags.out, { recursive: true });
  console.log(`# spawnhost benchmarks\n`);
  console.log(`- command: \`${command}\``);
  console.log(`- machine: ${availableParallelism()} CPUs, ${memGiB} GiB, Linux ${kernel}, Node ${process.version}; ${date}`);
  console.log(`- code: ${revision()}`);
  console.log(`- ways: ${ways.join(", ")}; each in a fresh Node process, one after the other`);
  // Other work on the machine skews every number: say how busy it was.
  const load = () => loadavg().map((v) => v.toFixed(2)).join(" ");
  console.log(`- load average at the start: ${load()}\n`);

  if (Number(flags.repeat) > 1) console.log(`- each number is the median of ${flags.repeat} rounds; the chart shows the first round\n`);
  const saved = { command, kernel, node: process.version, cpus: availableParallelism(), date, suites: {} };
  let failed = false;
  for (const suite of suites) {
    const mod = await import(`../suites/${suite}.mjs`);
    const suiteParams = { ...mod.defaults, ...params };
    process.stderr.write(`suite ${suite}\n`);
    let results;
    try {
      const drive = mod.drive ?? simpleDrive;
      // With --repeat R, every round runs the ways in a rotated order (so a change
      // in the machine's load does not always hit the same way) and each number
      // reported is the median of the rounds.
      const rounds = [];
      const repeat = Math.max(1, Number(flags.repeat));
      for (let r = 0; r < repeat; r++) {
        const order = [...ways.slice(r % ways.length), ...ways.slice(0, r % ways.length)];
        if (repeat > 1) process.stderr.write(` round ${r + 1} of ${repeat}: ${order.join(", ")}\n`);
        rounds.push(await drive({ suite, ways: order, params: suiteParams, spawnCell, explicitWays: Boolean(flags.ways) }));
      }
      results = medianMerge(rounds);
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
  console.log(`load average at the end: ${load()}`);
  const jsonPath = join(flags.out, `results-${stamp}.json`);
  writeFileSync(jsonPath, JSON.stringify(saved, (k, v) => (k === "timeline" ? undefined : v), 1));
  console.log(`raw results: ${relative(process.cwd(), jsonPath)}`);
  process.exit(failed ? 1 : 0);
}
