// Diagnostic, not a benchmark: where Node's main thread spends its CPU during a loop of
// launches, from `perf` samples of that thread alone (a worker's or the helper's are
// not in them). Each sample counts for the innermost JavaScript function on its stack
// (the builtins and C++ it called are its cost), and inclusively for every JavaScript
// function on it. This is how issue 33 found that, with `node -e ""` children, the
// start call is a third of the main thread's CPU and the read of the helper's replies
// another third, all of it run in V8's baseline tier with cold caches.
//   node bench/diag/main-thread-profile.mjs [true|node] [N]     (needs perf; Linux)
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const child = process.argv[2] ?? "node";
const n = Number(process.argv[3] ?? 400);

if (process.argv[4] === "--loop") {
  const { ProcessHost } = await import("spawnhost");
  const [file, args] = child === "node" ? [process.execPath, ["-e", ""]] : ["/bin/true", []];
  const host = new ProcessHost({ fallback: "error" });
  for (let i = 0; i < 16; i++) await host.execFile(file, args);
  console.log("ready");
  await new Promise((resolve) => setTimeout(resolve, 1000)); // perf attaches meanwhile
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      await host.execFile(file, args);
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  await host.shutdown();
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "spawnhost-profile-"));
const data = join(dir, "perf.data");
const loop = spawn(process.execPath, ["--perf-basic-prof", "--interpreted-frames-native-stack", process.argv[1], child, String(n), "--loop"], { stdio: ["ignore", "pipe", "inherit"] });
await new Promise((resolve) => loop.stdout.once("data", resolve));
const perf = spawn("perf", ["record", "-e", "cpu-clock", "-F", "10000", "-g", "-t", String(loop.pid), "-o", data], { stdio: "ignore" });
await new Promise((resolve) => loop.once("exit", resolve));
perf.kill("SIGINT");
await new Promise((resolve) => perf.once("exit", resolve));
const script = spawnSync("perf", ["script", "-i", data], { encoding: "utf8", maxBuffer: 1 << 30 }).stdout;

const frame = (line) => line.trim().replace(/^[0-9a-f]+ /, "").replace(/\+0x[0-9a-f]+/, "").replace(/ \(.*\)$/, "").replace(/file:\/\/\S*\/js\/src\//, "");
const own = new Map();
const inclusive = new Map();
const samples = script.split("\n\n").filter((s) => s.trim());
for (const sample of samples) {
  const frames = sample.split("\n").slice(1).map(frame).filter(Boolean);
  const js = frames.find((f) => f.startsWith("JS:")) ?? `native: ${frames[0] ?? "?"}`;
  own.set(js, (own.get(js) ?? 0) + 1);
  for (const f of new Set(frames.filter((f) => f.startsWith("JS:")))) inclusive.set(f, (inclusive.get(f) ?? 0) + 1);
}
const share = (count) => `${((count / samples.length) * 100).toFixed(1)} %`;
const top = (map, count) => [...map].sort((a, b) => b[1] - a[1]).slice(0, count);
console.log(`${samples.length} samples of the main thread, ${n} launches of ${child === "node" ? "node -e \"\"" : "/bin/true"}, 8 in flight`);
console.log("\n| innermost JavaScript function (with what it called outside JS) | share |\n|---|---|");
for (const [name, count] of top(own, 25)) console.log(`| ${name.slice(0, 100)} | ${share(count)} |`);
console.log("\n| JavaScript function, inclusive | share |\n|---|---|");
for (const [name, count] of top(inclusive, 30)) console.log(`| ${name.slice(0, 100)} | ${share(count)} |`);
