// The lazy pid (HostChild#waitForPid: a launch's pid read before the helper answered,
// waited for on the sync channel), and that no blocking call makes Node create a process.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { HelperBackend } from "../../js/src/host/backend-helper.js";
import { normalizeSpawnRequest } from "../../js/src/core/options.js";
import { locateHelper } from "../../js/src/helper/locate.js";
import { scratchDir } from "./support/scratch.js";

const backends = [];
after(() => Promise.all(backends.map((backend) => backend.shutdown())));

function newBackend() {
  const backend = new HelperBackend({
    onUnhandledChildError: (error) => { throw error; }, restart: false, helperPath: undefined,
    killGraceMs: 5000, answerMs: 10_000, platform: process.platform,
  });
  backends.push(backend);
  return backend;
}

// Starts a launch the way the drop-in's spawn() does: no await before reading pid.
function launch(backend, file, args, options = {}) {
  const { child } = backend.launch(normalizeSpawnRequest(file, args, options));
  let stdout = "";
  child.stdout?.on("data", (chunk) => { stdout += chunk; });
  const closed = new Promise((resolve) => child.on("close", () => resolve(stdout)));
  child.on("error", () => {});
  return { child, closed, release: () => child.release() };
}

test("a pid read before the helper's hello is the child's real pid", async () => {
  const backend = newBackend();
  const { child, closed, release } = launch(backend, "sh", ["-c", "echo $$"]);
  const pid = child.waitForPid();
  assert.equal(typeof pid, "number");
  release();
  assert.equal(await closed, `${pid}\n`);
  assert.equal(child.pid, pid);
});

test("pids read right after their launches, in one tick, are each child's own", async () => {
  const backend = newBackend();
  await backend.launch(normalizeSpawnRequest("true", [], {})).launched;
  const launches = Array.from({ length: 20 }, () => launch(backend, "sh", ["-c", "echo $$"]));
  const pids = launches.map(({ child }) => child.waitForPid());
  for (const { release } of launches) release();
  assert.deepEqual(await Promise.all(launches.map(({ closed }) => closed)), pids.map((pid) => `${pid}\n`));
  assert.equal(new Set(pids).size, 20);
});

test("the pid of a child that already ended inside the helper is still known", async () => {
  const backend = newBackend();
  await backend.launch(normalizeSpawnRequest("true", [], {})).launched;
  const { child, closed, release } = launch(backend, "sh", ["-c", "echo $$"], { stdio: ["ignore", "pipe", "ignore"] });
  // The spawn goes out (a microtask, then the channel's uncork on the next tick), but
  // the event loop does not run: its `spawned` stays unread while the child ends.
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(child.pid, undefined);
  backend.spawnSync({ file: "sleep", args: ["0.2"], envPairs: [`PATH=${process.env.PATH}`], stdio: ["ignore", "ignore", "ignore"] });
  const pid = child.waitForPid(); // the helper has reaped and forgotten that child by now
  release();
  assert.equal(await closed, `${pid}\n`);
});

test("a launch that fails has no pid, and still reports its error", async () => {
  const backend = newBackend();
  const { child, closed, release } = launch(backend, "/nonexistent/program", []);
  assert.equal(child.waitForPid(), undefined);
  const errors = [];
  child.on("error", (error) => errors.push(error.code));
  release();
  await closed;
  assert.deepEqual(errors, ["ENOENT"]);
});

test("with the main socket too full to flush, the pid stays undefined instead of blocking", async () => {
  const backend = newBackend();
  await backend.launch(normalizeSpawnRequest("true", [], {})).launched;
  // Node's frames wait in the main socket when they are more than it takes at once:
  // a spawn request with 1.2 MB of arguments (12 of 100 kB, which exec takes) does
  // that, whether the stdio and channels of children are relayed or Node's own.
  const sink = launch(backend, "true", Array.from({ length: 12 }, () => "x".repeat(100_000)), { stdio: "ignore" });
  sink.release();
  await null; // the sink's request is written (after channel.ready), most of it still queued
  const { child, closed, release } = launch(backend, "sh", ["-c", "echo $$"]);
  assert.equal(child.waitForPid(), undefined);
  release();
  const stdout = await closed;
  assert.equal(stdout, `${child.pid}\n`, "the pid still comes, the usual way");
  await sink.closed;
});

test("spawnSync and early pids create processes only on the helper's threads", { skip: !hasStrace() && "strace is not installed" }, () => {
  const dir = scratchDir("spawnhost-strace-");
  const script = `
    import { HelperBackend } from ${JSON.stringify(new URL("../../js/src/host/backend-helper.js", import.meta.url).href)};
    import { normalizeSpawnRequest } from ${JSON.stringify(new URL("../../js/src/core/options.js", import.meta.url).href)};
    const backend = new HelperBackend({ onUnhandledChildError() {}, restart: false, killGraceMs: 5000, answerMs: 10000, platform: process.platform });
    for (let i = 0; i < 3; i++) backend.spawnSync({ file: "/bin/true", args: [], envPairs: [], stdio: ["pipe", "pipe", "pipe"] });
    const { child } = backend.launch(normalizeSpawnRequest("/bin/true", [], {}));
    if (typeof child.waitForPid() !== "number") throw new Error("no pid");
    child.release();
    await new Promise((resolve) => child.on("close", resolve));
    await backend.shutdown();`;
  const run = spawnSync("strace", ["-f", "-ff", "-qq", "-e", "trace=clone,clone3,fork,vfork", "-e", "signal=none", "-o", `${dir}/trace`,
    process.execPath, "--input-type=module", "-e", script], {
    encoding: "utf8",
    // LeakSanitizer cannot run under ptrace: a sanitized helper checks no leaks here.
    env: { ...process.env, SPAWNHOST_HELPER_PATH: locateHelper(), ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?? ""}:detect_leaks=0` },
  });
  assert.equal(run.status, 0, `strace ended with ${run.error ?? `signal ${run.signal}`}: ${run.stderr}`);
  const { nodePid, created } = processCreatorsByProcess(dir);
  // Node created one process (the helper); the helper created the 4 children.
  assert.deepEqual([...created.values()].sort(), [1, 4]);
  assert.equal(created.get(nodePid), 1);
});

function hasStrace() {
  return spawnSync("strace", ["-V"]).status === 0;
}

// Reads strace -ff output (one file per thread): how many processes each process
// (by its first thread's id) created. A clone with CLONE_THREAD makes a thread of the
// caller's process; any other clone, fork or vfork makes a new process.
function processCreatorsByProcess(dir) {
  const calls = new Map();
  for (const name of readdirSync(dir)) {
    const tid = Number(name.split(".")[1]);
    const lines = readFileSync(`${dir}/${name}`, "utf8").split("\n");
    calls.set(tid, lines.flatMap((line) => {
      const match = /^(clone3?|v?fork)\((.*)\) = (\d+)$/.exec(line);
      return match ? [{ thread: match[2].includes("CLONE_THREAD"), created: Number(match[3]) }] : [];
    }));
  }
  const createdTids = new Set([...calls.values()].flat().map((call) => call.created));
  const [rootPid] = [...calls.keys()].filter((tid) => !createdTids.has(tid));
  const processOf = new Map([[rootPid, rootPid]]);
  const created = new Map();
  const visit = (tid) => {
    for (const call of calls.get(tid) ?? []) {
      const owner = processOf.get(tid);
      processOf.set(call.created, call.thread ? owner : call.created);
      if (!call.thread) created.set(owner, (created.get(owner) ?? 0) + 1);
      visit(call.created);
    }
  };
  visit(rootPid);
  return { nodePid: rootPid, created };
}
