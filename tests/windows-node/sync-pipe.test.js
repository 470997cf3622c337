// Windows Node: the helper's sync pipe serves Node only (docs/sync.md, "Windows"). A
// process that opens the pipe before Node is disconnected unheard, and Node's blocking
// calls then work as usual.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";

const builtin = createRequire(import.meta.url)("node:child_process");
const nodeSpawnSync = builtin.spawnSync;
await import("spawnhost/register");
const { configure, stats } = await import("spawnhost/child_process");

// The helper's command line names its pipe: seen where every spawn of Node's passes.
// `renamePipe` makes the next helper create another name than the one Node will open.
const helperArgs = [];
let renamePipe = false;
const originalSpawn = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function spawn(options) {
  const at = options?.args?.indexOf("--sync-pipe") ?? -1;
  if (at >= 0) {
    helperArgs.push(options.args);
    if (renamePipe) options.args[at + 1] += "-elsewhere";
    renamePipe = false;
  }
  return originalSpawn.call(this, options);
};

// Opens the pipe, writes what Node would (8 bytes), and reads: a blocking read, which
// returns when the helper disconnects it (or never: the call's timeout then ends it).
const impostor = `
const fs = require("fs");
let fd;
try { fd = fs.openSync(process.argv[1], "r+"); } catch (e) { console.log(JSON.stringify({ opened: false, code: e.code })); process.exit(); }
try { fs.writeSync(fd, Buffer.alloc(8)); } catch {}
const buf = Buffer.alloc(4096);
let n = 0, code = null;
try { n = fs.readSync(fd, buf, 0, buf.length, null); } catch (e) { code = e.code; }
console.log(JSON.stringify({ opened: true, read: n, code }));
`;

test("a process other than Node that opens the sync pipe first is disconnected, unheard", async () => {
  assert.notEqual(builtin.spawnSync, nodeSpawnSync, "register did not replace spawnSync");
  configure({}); // a fresh shared host: an async launch starts its helper, whose pipe Node has not opened
  await new Promise((resolve, reject) => builtin.execFile("cmd.exe", ["/c", "exit 0"], (error) => (error ? reject(error) : resolve())));
  const args = helperArgs.at(-1);
  assert.ok(args, "no helper was started with --sync-pipe");
  const name = args[args.indexOf("--sync-pipe") + 1];
  assert.match(name, /^\\\\\.\\pipe\\spawnhost-sync-\d+-[0-9a-f]{32}$/);
  // node:child_process's own spawnSync: the impostor is not the helper's parent.
  const run = nodeSpawnSync(process.execPath, ["-e", impostor, name], { encoding: "utf8", timeout: 30_000 });
  const seen = JSON.parse(run.stdout);
  assert.equal(seen.opened, true, `the impostor could not open ${name}: ${run.stdout}${run.stderr}`);
  assert.equal(seen.read, 0, `the impostor read ${seen.read} bytes`);
  const before = stats();
  const ours = builtin.spawnSync("cmd.exe", ["/c", "echo still ours"], { encoding: "utf8" });
  assert.equal(ours.stdout, "still ours\r\n");
  assert.equal(stats().fallback, before.fallback, JSON.stringify(stats().fallbackReasons));
  assert.equal(stats().helper, before.helper + 1);
});

test("a sync pipe that never appears fails the call within helperTimeoutMs; async launches go on", async () => {
  // Also the main channel's bound on the helper's start: seconds under wine on a loaded machine.
  configure({ helperTimeoutMs: 4000 });
  renamePipe = true;
  await new Promise((resolve, reject) => builtin.execFile("cmd.exe", ["/c", "exit 0"], (error) => (error ? reject(error) : resolve())));
  const started = performance.now();
  assert.throws(() => builtin.spawnSync("cmd.exe", ["/c", "exit 0"]), /did not open its sync pipe to Node within 4000 ms/);
  const waited = performance.now() - started;
  assert.ok(waited >= 4000 && waited < 12_000, `waited ${waited} ms`);
  const out = await new Promise((resolve, reject) => builtin.execFile("cmd.exe", ["/c", "echo async"], (error, stdout) => (error ? reject(error) : resolve(stdout))));
  assert.equal(out, "async\r\n");
});

test("a helper slow to wait on the pipe's second instance still finds Node there: Node holds it until the hello", () => {
  // The helper pauses between making the instance and waiting on it, as a thread that
  // lost its core does, so Node's open comes first. Had Node closed it at once, the
  // helper would find a client that came and went, not Node, and wait for Node for ever
  // (a CI run under wine: "said no hello on its sync channel within 10000 ms").
  process.env.SPAWNHOST_HELPER_SYNC_PIPE_PAUSE_MS = "1500";
  try {
    configure({ helperTimeoutMs: 8000 });
    const before = stats();
    const result = builtin.spawnSync("cmd.exe", ["/c", "echo after the pause"], { encoding: "utf8" });
    assert.equal(result.error, undefined);
    assert.equal(result.stdout, "after the pause\r\n");
    assert.equal(stats().fallback, before.fallback, JSON.stringify(stats().fallbackReasons));
    assert.equal(stats().helper, before.helper + 1);
  } finally {
    delete process.env.SPAWNHOST_HELPER_SYNC_PIPE_PAUSE_MS;
  }
});
