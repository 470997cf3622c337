// The portable posix_spawn launcher (the macOS helper's), chosen on Linux by
// SPAWNHOST_HELPER_POSIX_SPAWN=1 in the helper's environment (.ci/run also runs the
// whole helper-mode suite with it). These tests set it for their own hosts, so they
// run in every helper-mode run, and check what differs from the clone launcher.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ProcessHost } from "spawnhost";
import { modes, once } from "./support/modes.js";
import { alive, waitUntilGone } from "./support/procfs.js";

const helper = process.env.SPAWNHOST_HELPER_PATH || fileURLToPath(new URL("../../build/spawnhost-helper", import.meta.url));
const subreaper = fileURLToPath(new URL("../fixtures/subreaper-helper.pl", import.meta.url));
const nativeHelper = !readFileSync(helper).subarray(0, 2).equals(Buffer.from("#!"));

// A host whose helper (started by the first call) launches with posix_spawn. The
// variable is read by the helper at start and by Node when the channel is made.
async function posixSpawnHost(options = {}) {
  const saved = process.env.SPAWNHOST_HELPER_POSIX_SPAWN;
  process.env.SPAWNHOST_HELPER_POSIX_SPAWN = "1";
  try {
    const host = new ProcessHost({ helperPath: helper, fallback: "error", ...options });
    await host.execFile("true");
    return host;
  } finally {
    if (saved === undefined) delete process.env.SPAWNHOST_HELPER_POSIX_SPAWN;
    else process.env.SPAWNHOST_HELPER_POSIX_SPAWN = saved;
  }
}

// Resolves once process `pid` runs `sleep` (its comm in /proc/<pid>/stat).
async function execd(pid) {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (readFileSync(`/proc/${pid}/stat`, "utf8").includes("(sleep)")) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`process ${pid} did not exec sleep within 10 s`);
}

const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
const hosts = [];
after(() => Promise.all(hosts.map((host) => host.shutdown())));

if (modes().includes("helper") && process.platform === "linux") {
  describe("the posix_spawn launcher", () => {
    test("exec and cwd errors come back with Node's codes", async () => {
      const host = await posixSpawnHost();
      hosts.push(host);
      const missing = await host.execFile("no-such-program-spawnhost").catch((e) => e);
      assert.equal(missing.code, "ENOENT");
      const notExecutable = await host.execFile("/etc/passwd").catch((e) => e);
      assert.equal(notExecutable.code, "EACCES");
      const badCwd = await host.execFile("true", { cwd: "/nonexistent-spawnhost" }).catch((e) => e);
      assert.equal(badCwd.code, "ENOENT");
      const fileCwd = await host.execFile("true", { cwd: "/etc/passwd" }).catch((e) => e);
      assert.equal(fileCwd.code, "ENOTDIR");
    });

    test("children start with default signals, an empty mask, only their stdio, in Node's group or their own session", async () => {
      const host = await posixSpawnHost();
      hosts.push(host);
      const { stdout } = await host.execFile("sh", ["-c", "grep -E '^Sig(Ign|Blk)' /proc/self/status; ls /proc/self/fd"]);
      assert.equal(stdout, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n0\n1\n2\n3\n");
      const child = await host.spawn("sleep", ["30"], { stdio: "ignore" });
      const detached = await host.spawn("sleep", ["30"], { stdio: "ignore", detached: true });
      // Under qemu-user, posix_spawn returns before the child has exec'd (its vfork is a
      // fork): read the group and session once each runs `sleep`.
      await Promise.all([child.pid, detached.pid].map(execd));
      assert.equal(Number(stat(child.pid)[2]), Number(stat(process.pid)[2]), "in Node's process group");
      assert.equal(Number(stat(detached.pid)[3]), detached.pid, "a detached child leads its own session");
      for (const c of [child, detached]) {
        const closed = once(c, "close");
        c.kill("SIGKILL");
        await closed;
      }
    });

    test("cwd, env and IPC reach the child", async () => {
      const host = await posixSpawnHost();
      hosts.push(host);
      const { stdout } = await host.execFile("sh", ["-c", "pwd; echo $ONLY"], { cwd: "/tmp", env: { ONLY: "this", PATH: process.env.PATH } });
      assert.equal(stdout, "/tmp\nthis\n");
      const child = await host.fork(fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url)), ["echo"]);
      const reply = once(child, "message");
      child.send({ hello: "posix_spawn" });
      assert.deepEqual((await reply)[0], { hello: "posix_spawn" });
      const closed = once(child, "close");
      child.disconnect();
      await closed;
    });

    test("a SIGKILLed helper's children are ended by Node (no PR_SET_PDEATHSIG with posix_spawn); detached ones live on",
      { skip: !(nativeHelper && process.arch === "x64") && "needs the native x86-64 helper (the subreaper fixture)" }, async () => {
        const saved = process.env.SPAWNHOST_REAL_HELPER;
        process.env.SPAWNHOST_REAL_HELPER = helper;
        let host;
        try {
          host = await posixSpawnHost({ helperPath: subreaper, restart: false });
        } finally {
          if (saved === undefined) delete process.env.SPAWNHOST_REAL_HELPER;
        }
        const children = [];
        for (let i = 0; i < 3; i++) children.push(await host.spawn("sleep", ["30"], { stdio: "ignore" }));
        const detached = await host.spawn("sleep", ["30"], { stdio: "ignore", detached: true });
        detached.on("error", () => {});
        const helperPid = Number(stat(children[0].pid)[1]);
        const errors = children.map((c) => once(c, "error"));
        process.kill(helperPid, "SIGKILL");
        for (const [error] of await Promise.all(errors)) assert.match(error.message, /killed by SIGKILL|stdout ended|exited/);
        assert.deepEqual(await waitUntilGone(children.map((c) => c.pid), 5000), [], "children outlived the helper");
        assert.ok(alive(detached.pid), "a detached child must survive the helper");
        process.kill(detached.pid, "SIGKILL");
        await host.shutdown();
      });
  });
}

describe("OrphanGuard", () => {
  test("kills only the non-detached children whose exit was not reported", async () => {
    const { spawn } = await import("node:child_process");
    const { OrphanGuard } = await import("../../js/src/helper/orphan-guard.js");
    const sleepers = Array.from({ length: 3 }, () => spawn("sleep", ["30"], { stdio: "ignore" }));
    const guard = new OrphanGuard();
    guard.noteSent("spawn", [1, "sleep", ["30"], {}]);
    guard.noteSent("spawn", [2, "sleep", ["30"], { detached: true }]);
    guard.noteSent("spawn", [3, "sleep", ["30"], {}]);
    sleepers.forEach((child, i) => guard.noteReceived("spawned", [i + 1, child.pid, 0, 0]));
    guard.noteReceived("exit", [3, 0, null, 0]); // reported: its pid is no longer ours to kill
    const ended = sleepers.map((child) => once(child, "exit"));
    assert.equal(guard.killAll(), 1);
    assert.deepEqual((await ended[0]).slice(1), ["SIGKILL"]);
    assert.equal(guard.killAll(), 0, "each pid is signalled once");
    for (const child of sleepers.slice(1)) {
      assert.equal(child.exitCode, null, "a detached or reported child is left alone");
      child.kill("SIGKILL");
    }
    await Promise.all(ended);
  });
});
