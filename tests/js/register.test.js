// `--import spawnhost/register`: every way of reaching child_process (named, default and
// CommonJS imports, in modules loaded before and after the flag ran) launches through
// the helper; Node children do not inherit the flag unless asked; without a helper,
// node:child_process stays as it is and one warning says so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { ownsForkChannels } from "../../js/src/helper/process.js";
import { scratchDir } from "./support/scratch.js";

const run = promisify(execFile);
const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const repository = fileURLToPath(new URL("../..", import.meta.url));
const THROUGH_HELPER = { helper: 1, fallback: 0 };
// Sync calls go through the helper too, on its blocking channel.
const SYNC = THROUGH_HELPER;

async function report(flags, env = {}, app = "register-app.mjs") {
  const { stdout } = await run(process.execPath, [...flags, fixture(app)], {
    env: { ...process.env, NODE_OPTIONS: "", ...env }, timeout: 30_000,
  });
  return JSON.parse(stdout);
}

test("named, default and CommonJS imports all launch through the helper", async () => {
  const { ways, stats } = await report(["--import", "spawnhost/register"]);
  assert.deepStrictEqual(ways, {
    "named import": THROUGH_HELPER, "default import": THROUGH_HELPER, require: THROUGH_HELPER,
    "promisified execFile": THROUGH_HELPER, execFileSync: SYNC,
  });
  assert.equal(stats.mode, "helper");
});

test("modules loaded before the flag ran are swapped too", async () => {
  const { ways } = await report(["--import", fixture("register-before.mjs"), "--import", "spawnhost/register"]);
  for (const way of ["namedImport", "defaultImport", "required"]) assert.deepStrictEqual(ways[`${way}, loaded before`], THROUGH_HELPER, way);
});

test("NODE_OPTIONS works, and a Node child does not inherit the flag", async () => {
  const { ways, child } = await report([], { NODE_OPTIONS: "--import spawnhost/register" });
  assert.deepStrictEqual(ways["named import"], THROUGH_HELPER);
  assert.deepStrictEqual(child, { execArgv: [], nodeOptions: null, swapped: false });
});

test("SPAWNHOST_REGISTER_CHILDREN=1 passes the flag on to Node children", async () => {
  const { child } = await report([], { NODE_OPTIONS: "--import spawnhost/register", SPAWNHOST_REGISTER_CHILDREN: "1" });
  assert.deepStrictEqual(child, { execArgv: [], nodeOptions: "--import spawnhost/register", swapped: true });
});

// Test runners start workers with copies of the parent's flags and environment, from
// which register took the flag out (only to keep it from Node child processes).
for (const [how, flags, env] of [["--import", ["--import", "spawnhost/register"], {}], ["NODE_OPTIONS", [], { NODE_OPTIONS: "--import spawnhost/register" }]]) {
  test(`a worker thread given a copy of process.execArgv or process.env still has child_process swapped (${how})`, async () => {
    const { stdout } = await run(process.execPath, [...flags, fixture("register-workers.mjs")], {
      env: { ...process.env, NODE_OPTIONS: "", ...env }, timeout: 30_000,
    });
    assert.deepStrictEqual(JSON.parse(stdout), {
      default: true, "execArgv copied": true, "env copied": true, "both copied": true, SHARE_ENV: true,
    });
  });
}

// Whether the helper's forks have channels of Node's own (helper/process.js ownsForkChannels).
const RELAYED = !ownsForkChannels();
// cluster's workers are forked through the helper and sent their handles (the listening
// server, or each connection round-robin) over their channels, which are Node's own.
for (const policy of ["rr", "none"]) {
  test(`a node:cluster server's workers (scheduling ${policy}) are forked through the helper and answer`, async () => {
    const { answers, stats } = await report(["--import", "spawnhost/register"], { NODE_CLUSTER_SCHED_POLICY: policy }, "register-cluster.mjs");
    assert.equal(answers.length, 6);
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.match(answer.body, /^worker [12]$/);
    }
    if (RELAYED) {
      // A relayed channel cannot carry the handles: the workers fall back, counted.
      assert.deepStrictEqual(stats.fallbackReasons, { "a node:cluster worker (NODE_UNIQUE_ID): it is sent handles": 2 });
      return;
    }
    assert.equal(stats.helper, 2);
    assert.equal(stats.fallback, 0);
    assert.deepStrictEqual(stats.fallbackReasons, {});
  });
}

test("import \"spawnhost/register\" as an entry file's first line works", async () => {
  const script = "import \"spawnhost/register\"; const { spawn } = await import(\"node:child_process\"); const { stats } = await import(\"spawnhost/child_process\");" +
    " spawn(\"true\").on(\"close\", () => console.log(JSON.stringify(stats())));";
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: repository, timeout: 30_000 });
  assert.equal(JSON.parse(stdout).helper, 1);
});

test("the flag loads two small modules at start, and the drop-in only at the first launch", async () => {
  const script = "import { execFileSync } from 'node:child_process'; process.stderr.write('launching\\n'); execFileSync('true');" +
    " const { stats } = await import('spawnhost/child_process'); process.stderr.write('launched ' + JSON.stringify(stats()) + '\\n');";
  const { stderr } = await run(process.execPath, ["--import", fixture("trace-resolve.mjs"), "--import", "spawnhost/register", "--input-type=module", "-e", script], {
    env: { ...process.env, NODE_OPTIONS: "" }, timeout: 30_000,
  });
  const [before] = stderr.split("launching\n");
  const loaded = [...before.matchAll(/^resolved (file:\S+)$/gm)].map((m) => fileURLToPath(m[1]))
    .filter((path) => path.startsWith(repository)).map((path) => path.slice(repository.length));
  assert.deepEqual(loaded.sort(), ["js/src/core/node-child-process.js", "js/src/register.js"]);
  assert.match(stderr, /launched \{"helper":1,/);
});

test("without a helper for the platform, register leaves child_process alone and warns once", async () => {
  // An installed copy without its platform package, outside this repository.
  const project = scratchDir("spawnhost-register-");
  mkdirSync(`${project}/node_modules/@msgpack`, { recursive: true });
  cpSync(`${repository}/js/package.json`, `${project}/node_modules/spawnhost/package.json`);
  cpSync(`${repository}/js/src`, `${project}/node_modules/spawnhost/src`, { recursive: true });
  symlinkSync(`${repository}/node_modules/@msgpack/msgpack`, `${project}/node_modules/@msgpack/msgpack`);
  writeFileSync(`${project}/app.mjs`, "import { spawn } from \"node:child_process\"; import { stats } from \"spawnhost/child_process\";" +
    " spawn(\"true\").on(\"close\", () => console.log(JSON.stringify({ native: spawn.toString().includes(\"normalizeSpawnArguments\"), stats: stats() })));");
  const env = { ...process.env, NODE_OPTIONS: "" };
  delete env.SPAWNHOST_HELPER_PATH;
  const { stdout, stderr } = await run(process.execPath, ["--import", "spawnhost/register", "app.mjs"], { cwd: project, env, timeout: 30_000 });
  const { native, stats } = JSON.parse(stdout);
  assert.equal(native, true);
  assert.equal(stats.helper, 0);
  assert.equal(stderr.match(/SPAWNHOST_INLINE_FALLBACK/g)?.length, 1, stderr);
});
