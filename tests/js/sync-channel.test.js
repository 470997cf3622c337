// The sync channel itself (docs/sync.md): private whatever TMPDIR is, not needed by
// async launches, every wait bounded, and a fault ending only the call that met it.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ProcessHost } from "spawnhost";
import { locateHelper } from "../../js/src/helper/locate.js";
import { scratchDir } from "./support/scratch.js";

const fixture = (name) => new URL(`../fixtures/${name}`, import.meta.url).pathname;
const realHelper = locateHelper();
process.env.SPAWNHOST_REAL_HELPER = realHelper;
const scratch = scratchDir("spawnhost-sync-channel-test-");
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A normalized spawnSync request, as the face builds it. */
function syncRequest(file, args = [], options = {}) {
  return {
    file, args, envPairs: Object.entries(process.env).map(([k, v]) => `${k}=${v}`), stdio: ["pipe", "pipe", "pipe"],
    timeout: options.timeout, maxBuffer: options.maxBuffer ?? 1024 * 1024,
  };
}

/** Runs `source` (an ES module) in a fresh Node, at most `timeout` ms; its result. */
function runNode(source, { env = {}, timeout = 30_000 } = {}) {
  return spawnSync(process.execPath, ["--input-type=module", "-e", source], {
    cwd: new URL("../..", import.meta.url).pathname, env: { ...process.env, ...env }, timeout, encoding: "utf8",
  });
}

// Sets TMPDIR for the duration of `body` (os.tmpdir() reads it on every call).
async function withTmpdir(value, body) {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = value;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

// A node binary that another user can execute: this one, unless it sits in a private
// directory (the Node-versions run's are under /root/.cache), then the system's.
function nodeOthersCanRun() {
  const searchable = (path) => {
    for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    }
    return true;
  };
  const candidates = [process.execPath, "/usr/bin/node", "/usr/local/bin/node"];
  const found = candidates.find((path) => existsSync(path) && searchable(path));
  assert.ok(found, `no node binary another user can run among ${candidates.join(", ")}`);
  return found;
}

function unusableTmpdirs() {
  const file = join(scratch, "a-file");
  writeFileSync(file, "");
  return { missing: join(scratch, "missing"), "a file": file, "too long": join(scratch, "x".repeat(5000)) };
}

test("another local user cannot reach the sync channel through a shared TMPDIR", { skip: process.getuid?.() !== 0 && "needs root (the attacker runs as uid 65534)" }, async () => {
  // A shared TMPDIR without the sticky bit: anyone may rename what is in it.
  const shared = scratchDir("spawnhost-shared-tmp-");
  chmodSync(shared, 0o777);
  const attacker = spawn(nodeOthersCanRun(), [fixture("sync-attacker.mjs"), shared, "s3cr3t-in-env"], {
    uid: 65534, gid: 65534, stdio: ["ignore", "pipe", "inherit"],
  });
  let log = "";
  attacker.stdout.setEncoding("utf8").on("data", (text) => { log += text; });
  const attackerClosed = new Promise((resolve) => attacker.on("close", resolve));
  try {
    // The helper starts a second late: whatever Node made for it in TMPDIR waits there.
    const victim = runNode(`
      import { execFileSync } from "spawnhost/child_process";
      process.stdout.write(JSON.stringify(execFileSync("echo", ["real-output"], { encoding: "utf8" })));
    `, { env: { TMPDIR: shared, SPAWNHOST_HELPER_PATH: fixture("helper-slow-start.sh"), SECRET: "s3cr3t-in-env" } });
    assert.equal(victim.stdout, JSON.stringify("real-output\n"), `victim: ${victim.stderr}`);
  } finally {
    attacker.kill("SIGKILL");
    await attackerClosed;
    rmSync(shared, { recursive: true, force: true });
  }
  const events = log.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(events.filter((event) => !event.watching), [], "the attacker found nothing to take over");
});

test("async launches work whatever TMPDIR is: missing, a file, too long", async () => {
  for (const [kind, value] of Object.entries(unusableTmpdirs())) {
    await withTmpdir(value, async () => {
      const host = new ProcessHost({ fallback: "error" });
      try {
        assert.equal((await host.execFile("echo", ["async"])).stdout, "async\n", `TMPDIR ${kind}`);
      } finally {
        await host.shutdown();
      }
    });
  }
});

test("blocking calls work whatever TMPDIR is: missing, a file, too long", async () => {
  for (const [kind, value] of Object.entries(unusableTmpdirs())) {
    await withTmpdir(value, async () => {
      const host = new ProcessHost({ fallback: "error" });
      try {
        const result = host.launchSync(syncRequest("echo", ["sync"]));
        assert.equal(result.stdout.toString(), "sync\n", `TMPDIR ${kind}`);
      } finally {
        await host.shutdown();
      }
    });
  }
});

test("a helper that exits right after its hello fails the blocking call instead of holding it", () => {
  const run = runNode(`
    import { ProcessHost } from "spawnhost";
    const host = new ProcessHost({ fallback: "error", restart: false, helperPath: ${JSON.stringify(fixture("fake-helper-hello-then-exit.mjs"))} });
    await host.info().catch(() => {});
    try {
      host.launchSync({ file: "true", args: [], envPairs: [], stdio: ["pipe", "pipe", "pipe"] });
      console.log("returned");
    } catch (error) {
      console.log("threw", error.constructor.name);
    }
    process.exit(0);
  `, { timeout: 15_000 });
  assert.equal(run.signal, null, `it was still blocked when killed; stderr: ${run.stderr}`);
  assert.equal(run.stdout.trim(), "threw HelperExitedError");
});

// The call's own timeout bounds it, as it bounds Node's, whatever the helper
// does. The helper is stopped 0.5 s into a call with a 1 s timeout (it then neither kills
// the child nor answers); its liveness limit is 3 s, so an end before then is the
// timeout's doing.
test("a stopped helper holds no execFileSync past its timeout: Node's ETIMEDOUT, the child ended, the next call on a fresh helper", () => {
  const run = runNode(`
    import * as nodeChildProcess from "node:child_process";
    import { readFileSync } from "node:fs";
    import { configure, execFileSync } from "spawnhost/child_process";
    import { sharedHost } from "./js/src/drop-in/shared-host.js";
    configure({ helperTimeoutMs: 3000 });
    const shape = (error) => ({
      keys: Object.keys(error), name: error.name, message: error.message, code: error.code, errno: error.errno,
      syscall: error.syscall, path: error.path, spawnargs: error.spawnargs, status: error.status, signal: error.signal,
      stdout: String(error.stdout), stderr: String(error.stderr), output: String(error.output),
    });
    const call = (execFileSync) => {
      const started = performance.now();
      try {
        execFileSync("sh", ["-c", "echo before; exec sleep 2"], { timeout: 1000, stdio: "pipe" });
        return { returned: true };
      } catch (error) {
        return { ms: performance.now() - started, shape: shape(error), pid: error.pid };
      }
    };
    const node = call(nodeChildProcess.execFileSync);
    const { helperPid } = await sharedHost().info();
    const stopper = nodeChildProcess.spawn("sh", ["-c", "sleep 0.5; kill -STOP " + helperPid + "; sleep 20; kill -CONT " + helperPid], { stdio: "ignore" });
    const ours = call(execFileSync);
    // Ended: a zombie of the stopped helper (which cannot reap it), or gone, once the
    // signal has been delivered.
    let childState;
    for (let tries = 0; tries < 40 && childState !== "Z" && childState !== "gone"; tries++) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      try { childState = readFileSync("/proc/" + ours.pid + "/stat", "utf8").split(") ")[1][0]; } catch { childState = "gone"; }
    }
    const next = String(execFileSync("echo", ["next"])).trim();
    const { helperPid: nextHelperPid } = await sharedHost().info();
    stopper.kill("SIGKILL");
    try { process.kill(helperPid, "SIGCONT"); } catch {}
    console.log(JSON.stringify({ node, ours, childState, next, freshHelper: nextHelperPid !== helperPid && nextHelperPid > 0 }));
    process.exit(0);
  `, { timeout: 30_000 });
  assert.equal(run.signal, null, `it was still blocked when killed; stderr: ${run.stderr}`);
  const { node, ours, childState, next, freshHelper } = JSON.parse(run.stdout.trim().split("\n").at(-1));
  assert.equal(ours.returned, undefined, "the call threw");
  assert.deepEqual(ours.shape, node.shape);
  assert.equal(ours.shape.code, "ETIMEDOUT");
  assert.ok(ours.ms < 3000, `ended ${Math.round(ours.ms)} ms after the call, by the helper's liveness limit (3 s), not its own timeout`);
  assert.match(childState, /^(Z|gone)$/, "the child was ended");
  assert.equal(next, "next");
  assert.ok(freshHelper, "the next call ran on a fresh helper");
});

test("a blocking call's timeout counts from the child's start, as Node's: a slow launch of a slow helper is not ETIMEDOUT", () => {
  // Every launch holds the helper's one launch thread 400 ms before the OS call (a slow
  // CreateProcessW), longer than each call's timeout: Node's timer starts after uv_spawn.
  // The first call waits in the helper's queue behind an async launch; the second finds
  // the helper stopped for 400 ms (starved, as under wine at a high load), so past its
  // 1 ms it cannot answer a ping. Neither may end a call whose child does not exist yet.
  const run = runNode(`
    import * as nodeChildProcess from "node:child_process";
    import { configure, spawn, spawnSync } from "spawnhost/child_process";
    import { sharedHost } from "./js/src/drop-in/shared-host.js";
    configure({ maxLaunchThreads: 1 });
    const code = (result) => result.error?.code ?? null;
    const calls = async (spawnSync, spawn, stop) => {
      spawn("true", { stdio: "ignore" });
      await new Promise((resolve) => setImmediate(resolve)); // its request has left
      const queued = code(spawnSync("not_a_real_command", { timeout: 1 }));
      stop();
      const stopped = code(spawnSync("not_a_real_command", { timeout: 1 }));
      const quick = spawnSync("sh", ["-c", "echo ok"], { timeout: 200, encoding: "utf8" });
      return { queued, stopped, quick: [quick.status, quick.signal, quick.stdout, code(quick)] };
    };
    const node = await calls(nodeChildProcess.spawnSync, nodeChildProcess.spawn, () => {});
    spawnSync("true"); // the sync channel open, its hello heard
    const { helperPid } = await sharedHost().info();
    const started = performance.now();
    const ours = await calls(spawnSync, spawn, () => {
      nodeChildProcess.spawn("sh", ["-c", "sleep 0.4; kill -CONT " + helperPid], { stdio: "ignore" });
      process.kill(helperPid, "SIGSTOP");
    });
    console.log(JSON.stringify({ node, ours, ms: performance.now() - started }));
  `, { env: { SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS: "400" } });
  assert.equal(run.status, 0, run.stderr);
  const { node, ours, ms } = JSON.parse(run.stdout.trim().split("\n").at(-1));
  assert.deepEqual(node, { queued: "ENOENT", stopped: "ENOENT", quick: [0, null, "ok\n", null] });
  assert.deepEqual(ours, node);
  assert.ok(ms >= 1600, `four launches went through the slow helper, one at a time (${Math.round(ms)} ms)`);
});

test("a stopped helper cannot hold a call without a timeout either", async () => {
  const host = new ProcessHost({ fallback: "error", helperTimeoutMs: 300 });
  const { helperPid } = await host.info();
  const stopper = spawn("sh", ["-c", `sleep 0.3; kill -STOP ${helperPid}; sleep 8; kill -CONT ${helperPid}`], { stdio: "ignore" });
  try {
    assert.throws(() => host.launchSync(syncRequest("sleep", ["3"])), { hung: true });
  } finally {
    stopper.kill("SIGKILL");
    try { process.kill(helperPid, "SIGCONT"); } catch { /* killed, as it should be */ }
    await host.shutdown().catch(() => {});
  }
});

test("after the helper died during a blocking call, the next call runs on a fresh helper", async () => {
  const host = new ProcessHost({ fallback: "error" });
  try {
    const { helperPid } = await host.info();
    assert.equal(host.launchSync(syncRequest("true")).status, 0);
    process.kill(helperPid, "SIGKILL");
    // No turn of the event loop in between: the sync channel itself saw the end.
    assert.throws(() => host.launchSync(syncRequest("true")), /went away during a synchronous call/);
    const next = host.launchSync(syncRequest("echo", ["again"]));
    assert.equal(next.stdout.toString(), "again\n");
  } finally {
    await host.shutdown();
  }
});

test("after one garbage frame on the sync channel, the next call runs on a fresh helper", async () => {
  const mark = join(scratch, "garbage-mark");
  process.env.SYNC_GARBAGE_MARK = mark;
  const host = new ProcessHost({ fallback: "error", helperPath: fixture("helper-sync-garbage-once.sh") });
  try {
    assert.throws(() => host.launchSync(syncRequest("true")), /broke the protocol on its sync channel/);
    const next = host.launchSync(syncRequest("echo", ["recovered"]));
    assert.equal(next.stdout.toString(), "recovered\n");
  } finally {
    await host.shutdown();
  }
});

test("past maxBuffer a child that ignores the kill signal is ended by its closed pipes, as with Node", async () => {
  const host = new ProcessHost({ fallback: "error" });
  try {
    // 200 MB, SIGTERM ignored: only the closed pipe (SIGPIPE) ends it early.
    const args = ["-c", "trap '' TERM; exec head -c 200000000 /dev/zero"];
    const maxBuffer = 1024 * 1024;
    // A timeout far past the few ms this takes: a call whose pipes stay open would block
    // this thread for ever, where no test timer can fire; it ends ETIMEDOUT instead.
    const timeout = 20_000;
    const ours = host.launchSync(syncRequest("sh", args, { maxBuffer, timeout }));
    const node = spawnSync("sh", args, { maxBuffer, timeout });
    assert.equal(ours.error?.code, node.error?.code);
    assert.equal(ours.error.code, "ENOBUFS");
    // It did not write everything: SIGPIPE, or (Node's pipes are sockets, where a write
    // may fail with ECONNRESET instead) a failed write and a non-zero status.
    for (const [who, r] of [["ours", ours], ["node", node]]) {
      assert.ok(r.signal === "SIGPIPE" || (r.signal === null && r.status !== 0), `${who}: ${r.status} ${r.signal}`);
      // What came up to the chunk that passed the cap is kept, no more.
      assert.ok(r.stdout.length > maxBuffer && r.stdout.length < 2 * maxBuffer, `${who} kept ${r.stdout.length} bytes`);
    }
  } finally {
    await host.shutdown();
  }
});
