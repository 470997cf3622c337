// Applies each mutant of tests/mutants.mjs, one at a time per scratch copy of this
// checkout (two copies at once, SPAWNHOST_MUTANT_WORKERS), runs only the tests named
// for it, and expects them to fail. Prints a table
// mutant → caught/SURVIVED → the test that caught it; exits non-zero when a mutant
// survived, could not be applied (its `find` text is gone or ambiguous), or did not build.
//   node scripts/mutants.mjs [--baseline] [--keep] [name-substring ...]
// --baseline also runs each mutant's tests unmutated first (they must pass), --keep
// leaves the scratch copies in place. See scripts/mutants.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mutants } from "../tests/mutants.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const baseline = args.includes("--baseline");
const keep = args.includes("--keep");
const only = args.filter((a) => !a.startsWith("--"));
const selected = mutants.filter((m) => only.length === 0 || only.some((o) => m.name.includes(o)));
if (selected.length === 0) fail(`no mutant matches ${only.join(", ")}`);

// One mutant's test run; --test-timeout below fails a hung test first. A mutant that
// makes a test wait forever is caught by that timeout: 60 s, where the slowest test of
// any mutant's list takes well under that, so that those few do not set the step's pace.
const RUN_LIMIT_MS = 120_000;
const TEST_TIMEOUT_MS = 60_000;
const started = Date.now();
const elapsed = () => `${Math.round((Date.now() - started) / 1000)}s`;
const log = (line) => process.stderr.write(`mutants [${elapsed()}]: ${line}\n`);

function fail(message) {
  process.stderr.write(`mutants: ${message}\n`);
  process.exit(1);
}

// A copy of every file git knows (tracked, or new and not ignored), as it is on disk.
function scratchCopy() {
  const root = mkdtempSync(join(tmpdir(), "spawnhost-mutants-"));
  // Readable by others: the RLIMIT_NPROC tests run the helper as another user.
  chmodSync(root, 0o755);
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repo, encoding: "utf8" })
    .split("\0").filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(repo, file))) continue; // deleted in the working tree
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(join(repo, file), join(root, file));
  }
  // Dependencies by link, except the workspace link to the package itself, which must
  // point at the copy's js/ (where the mutants go).
  mkdirSync(join(root, "node_modules"));
  for (const entry of readdirSync(join(repo, "node_modules"))) {
    symlinkSync(entry === "spawnhost" ? "../js" : join(repo, "node_modules", entry), join(root, "node_modules", entry));
  }
  return root;
}

// Every edit's text must be in its file exactly once.
function checkEdits(root) {
  const problems = [];
  for (const m of selected) {
    for (const { file, find } of m.edits) {
      const path = join(root, file);
      if (!existsSync(path)) {
        problems.push(`${m.name}: ${file} does not exist`);
        continue;
      }
      const count = readFileSync(path, "utf8").split(find).length - 1;
      if (count !== 1) problems.push(`${m.name}: ${file} holds the text to replace ${count} times, not once:\n    ${JSON.stringify(find)}`);
    }
    for (const t of m.tests) if (!existsSync(join(root, "tests/js", t))) problems.push(`${m.name}: no test file tests/js/${t}`);
  }
  if (problems.length) fail(`the list no longer matches the code:\n  ${problems.join("\n  ")}`);
}

function buildHelper(root) {
  const build = join(root, "build");
  try {
    execFileSync("cmake", ["--build", build, "--target", "spawnhost-helper", `-j${cpus().length}`], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    return null;
  } catch (error) {
    return String(error.stderr || error.message).split("\n").filter((l) => /error/.test(l)).slice(0, 5).join("\n");
  }
}

// A mutant can leave processes behind its test run: a helper whose shutdown waits on a
// launch the mutant broke, and that helper's children (a helper is in a process group
// of its own, out of the run's). Every process of a run carries its mark in its
// environment; what still carries it once the run has ended is killed, so that no
// mutant's leftovers run beside later mutants or the steps after this script.
const RUN_MARK = "SPAWNHOST_MUTANT_RUN";
let runs = 0;
function killStrays(runMark) {
  const needle = `${RUN_MARK}=${runMark}\0`;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    let environ;
    try { environ = readFileSync(`/proc/${pid}/environ`, "latin1"); } catch { continue; }
    if (environ.includes(needle)) try { process.kill(Number(pid), "SIGKILL"); } catch { /* gone */ }
  }
}

// A failed test in the TAP stream, at any depth (a todo's failure is none). TAP reports
// a test before the suite around it: the first failure is the test. A test file
// reported as a whole did not load or hung: that is no test catching it.
const FAILED_LINE = /^\s*not ok \d+ - (.*)$/gm;
const failedNames = (output, root) => [...output.matchAll(FAILED_LINE)].map((match) => match[1])
  .filter((name) => !/ # TODO\b/.test(name)).map((name) => name.replace(/ # .*$/, "")).filter((name) => !name.startsWith(root));

// Runs the mutant's tests; resolves with { code, failed: [test names], output }. With
// `firstFailure` the run ends at its first failed test, all a mutant's run must show
// (most are caught in their first seconds, and their files ran on for the rest).
function runTests(root, m, helperPath, { firstFailure = false } = {}) {
  const argv = ["--test", "--test-concurrency=1", `--test-timeout=${TEST_TIMEOUT_MS}`, "--test-reporter=tap"];
  if (m.pattern) argv.push(`--test-name-pattern=${m.pattern}`);
  argv.push(...m.tests.map((t) => `tests/js/${t}`));
  const runMark = `${process.pid}-${++runs}`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: root,
      env: { ...process.env, SPAWNHOST_HELPER_PATH: helperPath, SPAWNHOST_TEST_MODES: m.modes ?? "helper", ...m.env, [RUN_MARK]: runMark },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    let partLine = ""; // stdout's last line while it is incomplete
    let stopped = false;
    const stop = () => { try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ } };
    child.stdout.on("data", (chunk) => {
      output += chunk;
      if (!firstFailure || stopped) return;
      const text = partLine + chunk;
      const complete = text.lastIndexOf("\n") + 1; // whole lines only
      partLine = text.slice(complete);
      if (failedNames(text.slice(0, complete), root).length > 0) {
        stopped = true;
        stop();
      }
    });
    child.stderr.on("data", (chunk) => { output += chunk; });
    const timer = setTimeout(stop, RUN_LIMIT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      killStrays(runMark);
      resolve({ code: code ?? signal, failed: failedNames(output, root), output });
    });
  });
}

const root = scratchCopy();
log(`scratch copy at ${root}`);
checkEdits(root);
const needsBuild = selected.some((m) => m.edits.some((e) => e.file.startsWith("helper/")));
log("building the helper from the copy");
execFileSync("cmake", ["-S", root, "-B", join(root, "build"), "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSPAWNHOST_WERROR=ON", "-DSPAWNHOST_TESTS=OFF", "-DSPAWNHOST_TEST_HOOKS=ON"], { stdio: "ignore" });
const buildError = buildHelper(root);
if (buildError) fail(`the unmutated helper does not build:\n${buildError}`);
// JS mutants run against the unmutated helper, kept aside while C++ mutants rebuild.
const pristine = join(root, "spawnhost-helper.pristine");
copyFileSync(join(root, "build/spawnhost-helper"), pristine);
execFileSync("chmod", ["+x", pristine]);

// Mutants run on WORKERS scratch copies at once (the test runs mostly wait on children);
// the C++ ones all on the first copy, the only one with a build directory.
const WORKERS = Math.max(1, Number(process.env.SPAWNHOST_MUTANT_WORKERS) || Math.min(2, cpus().length));
const roots = [root, ...Array.from({ length: WORKERS - 1 }, () => scratchCopy())];
const isCpp = (m) => m.edits.some((e) => e.file.startsWith("helper/"));
const queue = { cpp: selected.filter(isCpp), js: selected.filter((m) => !isCpp(m)) };
const rows = new Map();
await Promise.all(roots.map(async (workRoot, worker) => {
  for (;;) {
    const m = (worker === 0 && queue.cpp.shift()) || queue.js.shift();
    if (!m) return;
    const row = await runMutant(workRoot, m);
    rows.set(m, row);
    log(`${m.name}: ${row.result}${row.by !== "-" ? ` (${row.by})` : ""}`);
  }
}));

async function runMutant(workRoot, m) {
  const cpp = isCpp(m);
  const helperPath = cpp ? join(workRoot, "build/spawnhost-helper") : pristine;
  const t0 = Date.now();
  if (baseline) {
    const before = await runTests(workRoot, m, pristine);
    if (before.code !== 0) {
      log(`${m.name}: its tests fail without the mutant:\n${before.output.slice(-2000)}`);
      return { name: m.name, result: "BASELINE FAILS", by: before.failed[0] ?? `exit ${before.code}`, seconds: 0 };
    }
  }
  const originals = new Map();
  for (const { file, find, replace } of m.edits) {
    const path = join(workRoot, file);
    if (!originals.has(path)) originals.set(path, readFileSync(path, "utf8"));
    writeFileSync(path, readFileSync(path, "utf8").replace(find, () => replace));
  }
  let row;
  try {
    const broken = cpp ? buildHelper(workRoot) : null;
    if (broken) {
      row = { result: "DID NOT BUILD", by: broken.split("\n")[0] };
    } else {
      const { code, failed } = await runTests(workRoot, m, helperPath, { firstFailure: true });
      if (code === 0) row = { result: "SURVIVED", by: "-" };
      else if (failed.length) row = { result: "caught", by: `${m.tests.length > 1 ? "" : `${m.tests[0]}: `}${failed[0]}` };
      else row = { result: "NO TEST FAILED", by: `the run ended with ${code}` };
    }
  } finally {
    for (const [path, text] of originals) writeFileSync(path, text);
  }
  return { name: m.name, ...row, seconds: Math.round((Date.now() - t0) / 1000) };
}
if (needsBuild) buildHelper(root); // leave the copy's helper unmutated for --keep

const ordered = selected.map((m) => rows.get(m));
const width = Math.max(...ordered.map((r) => r.name.length));
const resultWidth = Math.max(...ordered.map((r) => r.result.length));
console.log(`\n${"mutant".padEnd(width)}  ${"result".padEnd(resultWidth)}  time  caught by`);
for (const r of ordered) console.log(`${r.name.padEnd(width)}  ${r.result.padEnd(resultWidth)}  ${String(r.seconds).padStart(3)}s  ${r.by}`);
const bad = ordered.filter((r) => r.result !== "caught");
console.log(`\n${ordered.length - bad.length} of ${ordered.length} mutants caught in ${elapsed()}${bad.length ? `; not caught: ${bad.map((r) => r.name).join(", ")}` : ""}`);
if (keep) console.log(`scratch copies kept at ${roots.join(", ")}`);
else for (const r of roots) rmSync(r, { recursive: true, force: true });
process.exit(bad.length ? 1 : 0);
