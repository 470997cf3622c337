// The host's life: idle hosts let Node exit, the helper's handshake, the helper going
// away, restart, shutdown and removeTree.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync, symlinkSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { ProcessHost, HelperExitedError, HelperVersionError, HostShutdownError } from "spawnhost";
import { modes, hostFor, once, rejection } from "./support/modes.js";
import { alive, helperPidsOf, waitUntilGone } from "./support/procfs.js";
import { HOLD_WRITE_LEASE } from "./support/lease.js";
import { scratchDir } from "./support/scratch.js";

const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
// perl (in every Debian) holds a write lease (fcntl F_SETLEASE 1024, F_WRLCK 1) on
// ARGV[0] and says "held"; any open of the file, exec's included, waits until it lets
// go: after ARGV[1] seconds (default 120) or when it dies.
const packageVersion = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url), "utf8")).version;

for (const mode of modes()) {
  describe(`host lifecycle (${mode})`, () => {
    test("an idle host lets the Node process exit on its own", () => {
      const result = spawnSync(process.execPath, [fixture("idle-host-exits.mjs"), mode], { encoding: "utf8", timeout: 15000 });
      assert.equal(result.error, undefined, "the process did not exit by itself");
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, "idle\n");
    });

    // What happens to the child then differs by design (README, "Differences"): Node
    // leaves it running; the helper ends every non-detached child when Node is gone.
    test(`an unref'd child does not keep the Node process alive, and ${mode === "helper" ? "ends with it" : "outlives it"}`, async () => {
      const result = spawnSync(process.execPath, [fixture("unref-child-exits.mjs"), mode], { encoding: "utf8", timeout: 15000 });
      assert.equal(result.error, undefined, "the process did not exit by itself");
      assert.equal(result.status, 0, result.stderr);
      const pid = Number(result.stdout.trim());
      assert.ok(pid > 0, `no pid printed: ${result.stdout}`);
      try {
        if (mode === "helper") {
          assert.deepEqual(await waitUntilGone([pid], 10_000), [], "the unref'd child outlived Node");
        } else {
          assert.ok(alive(pid), "an inline child is Node's own and outlives it");
        }
      } finally {
        try { process.kill(pid, "SIGKILL"); } catch { /* already gone */ }
      }
    });

    test("removeTree deletes a tree, removes links without following them, and accepts a missing path", async () => {
      const host = hostFor(mode);
      const root = scratchDir("spawnhost-rm-");
      const outside = scratchDir("spawnhost-keep-");
      writeFileSync(`${outside}/keep.txt`, "keep");
      mkdirSync(`${root}/a/b`, { recursive: true });
      writeFileSync(`${root}/a/b/file.txt`, "x");
      symlinkSync(outside, `${root}/a/link`);
      await host.removeTree(root);
      assert.equal(existsSync(root), false);
      assert.deepEqual(readdirSync(outside), ["keep.txt"]);
      await host.removeTree(root);
      await host.shutdown();
    });

    test("calls after shutdown() reject with HostShutdownError", async () => {
      const host = hostFor(mode);
      await host.execFile("true");
      await host.shutdown();
      await assert.rejects(host.execFile("true"), HostShutdownError);
    });
  });
}

if (modes().includes("helper")) {
  describe("the helper channel", () => {
    test("a helper of another version is refused with both versions and its path", async () => {
      const host = new ProcessHost({ helperPath: fixture("fake-helper-wrong-version.mjs") });
      const error = await rejection(host.execFile("true"));
      assert.ok(error instanceof HelperVersionError, String(error));
      assert.match(error.message, /9\.9\.9/);
      assert.ok(error.message.includes(packageVersion));
      assert.ok(error.message.includes(fixture("fake-helper-wrong-version.mjs")));
    });

    test("a helper that dies rejects pending calls with HelperExitedError quoting its stderr", async () => {
      const host = new ProcessHost({ helperPath: fixture("fake-helper-dies-on-request.mjs") });
      const error = await rejection(host.execFile("true"));
      assert.ok(error instanceof HelperExitedError, String(error));
      assert.equal(error.exitCode, 7);
      assert.equal(error.signal, null);
      assert.equal(error.helperPath, fixture("fake-helper-dies-on-request.mjs"));
      assert.match(error.message, /exited with code 7/);
      assert.match(error.message, /dying on purpose/);
    });

    test("after the helper died, the next call starts a fresh one", async () => {
      const log = `${scratchDir("spawnhost-log-")}/starts`;
      process.env.FAKE_HELPER_LOG = log;
      try {
        const host = new ProcessHost({ helperPath: fixture("fake-helper-dies-on-request.mjs") });
        await rejection(host.execFile("true"));
        await rejection(host.execFile("true"));
        assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 2);
      } finally {
        delete process.env.FAKE_HELPER_LOG;
      }
    });

    test("with restart: false, calls after the helper died fail with the same error", async () => {
      const host = new ProcessHost({ helperPath: fixture("fake-helper-dies-on-request.mjs"), restart: false });
      const first = await rejection(host.execFile("true"));
      const second = await rejection(host.execFile("true"));
      assert.equal(second, first);
    });

    test("a live child gets error then close when the helper is killed", async () => {
      const host = new ProcessHost({ fallback: "error" });
      after(() => host.shutdown());
      const child = await host.spawn("sleep", ["10"]);
      const events = [];
      let exited;
      child.on("error", (error) => { exited = error; events.push(["error", error.constructor.name]); });
      const closed = once(child, "close").then(() => events.push(["close"]));
      process.kill(helperPidsOf(process.pid)[0], "SIGKILL");
      await closed;
      assert.deepEqual(events, [["error", "HelperExitedError"], ["close"]]);
      assert.equal(exited.signal, "SIGKILL");
      assert.equal(exited.exitCode, null);
      if (process.env.SPAWNHOST_HELPER_PATH) assert.equal(exited.helperPath, process.env.SPAWNHOST_HELPER_PATH);
      else assert.match(exited.helperPath, /spawnhost-helper/);
      assert.equal((await host.execFile("echo", ["again"])).stdout, "again\n");
    });

    test("shutdown() rejects a pending call with HostShutdownError", async () => {
      const host = new ProcessHost({ fallback: "error" });
      const outcome = rejection(host.execFile("sleep", ["10"]));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await host.shutdown();
      assert.ok(await outcome instanceof HostShutdownError);
    });

    test("a launch that never completes still rejects with timedOut one second after the timeout", async () => {
      const host = new ProcessHost({ helperPath: fixture("fake-helper-silent.mjs") });
      // The helper must have said hello before the timeout: a kill that reaches a launch
      // not yet sent cancels it instead (on a loaded machine node takes a while to start).
      const primer = host.removeTree(`${tmpdir()}/spawnhost-never-answered`).catch((error) => error);
      while (host.stats().helperPid === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const started = Date.now();
      const error = await rejection(host.execFile("sleep", ["10"], { timeout: 200 }));
      const elapsed = Date.now() - started;
      assert.equal(error.timedOut, true);
      assert.equal(error.killed, true);
      assert.equal(error.signal, "SIGTERM");
      assert.ok(elapsed >= 1150 && elapsed < 3000, `settled after ${elapsed} ms`);
      await host.shutdown();
      assert.ok(await primer instanceof HostShutdownError);
    });

    // The only launch thread is held inside a first launch: a write lease on its program
    // makes exec's open wait until the lease holder lets go. The second launch waits
    // in the queue past its helper-side deadline; the lease is released before the
    // calling thread's own deadline (timeout + 1 s), so only the helper's check can
    // keep it from starting.
    test("a launch still queued at its deadline never starts, and rejects with timedOut", async () => {
      const dir = scratchDir("spawnhost-queued-");
      const blocker = `${dir}/blocker.sh`;
      const marker = `${dir}/started`;
      writeFileSync(blocker, "#!/bin/sh\nexit 0\n");
      chmodSync(blocker, 0o755);
      const holder = spawn("perl", ["-e", HOLD_WRITE_LEASE, blocker, "1.5"], { stdio: ["ignore", "pipe", "inherit"] });
      const launched = [];
      const host = new ProcessHost({ fallback: "error", maxLaunchThreads: 1, onLaunch: ({ file }) => launched.push(file) });
      try {
        assert.equal((await once(holder.stdout, "data"))[0].toString(), "held\n");
        // A running helper receives the next requests at once, so its deadline for the
        // second (1 s after it arrived) falls ~500 ms before the lease is let go. This
        // thread is blocked from then until well after, so that only the helper can
        // decide: the calling thread's own timer (which would kill the queued launch)
        // cannot run before the launch thread is free again.
        await host.execFile("true");
        const first = host.execFile(blocker).catch((error) => error);
        const second = rejection(host.execFile("touch", [marker], { timeout: 1000 }));
        await new Promise((resolve) => setImmediate(resolve)); // the requests leave
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
        const error = await second;
        assert.equal(error.timedOut, true);
        assert.equal(error.killed, true);
        await first;
        // Queued behind both: once it ran, the helper has decided the second one.
        await host.execFile("true");
        assert.deepEqual(launched, ["true", blocker, "true"], "the launch past its deadline was started");
        assert.equal(existsSync(marker), false);
      } finally {
        holder.kill("SIGKILL");
        await host.shutdown();
      }
    });

    test("a missing helper binary is a clear error naming the path", async () => {
      const host = new ProcessHost({ helperPath: "/nonexistent/spawnhost-helper" });
      const error = await rejection(host.execFile("true"));
      assert.equal(error.name, "HelperNotFoundError");
      assert.match(error.message, /\/nonexistent\/spawnhost-helper/);
    });

    test("maxLaunchThreads 1 still runs many concurrent launches", async () => {
      const host = new ProcessHost({ fallback: "error", maxLaunchThreads: 1 });
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => host.execFile("echo", [String(i)])));
      assert.deepEqual(results.map((r) => r.stdout), Array.from({ length: 20 }, (_, i) => `${i}\n`));
      await host.shutdown();
    });

    test("maxLaunchThreads up to its limit, 1024, is a cap the helper accepts", async () => {
      // Only what the launches need is started (helper/launch/launch_pool.hpp).
      const host = new ProcessHost({ fallback: "error", maxLaunchThreads: 1024 });
      assert.equal((await host.execFile("echo", ["capped"])).stdout, "capped\n");
      await host.shutdown();
    });

    test("onLaunch reports createMs and queuedMs measured in the helper, in milliseconds", async () => {
      const launches = [];
      const host = new ProcessHost({ fallback: "error", onLaunch: (launch) => launches.push(launch) });
      await host.execFile("true"); // the helper is running: the next calls measure only their launch
      // execFile takes the lean path (launch/exec-call.js), spawn the full one (launch/helper-launch.js).
      const ways = [["exec", () => host.execFile("true")], ["spawn", async () => once(await host.spawn("true"), "close")]];
      for (const [kind, run] of ways) {
        const started = performance.now();
        await run();
        const callMs = performance.now() - started;
        const { kind: reported, file, createMs, queuedMs } = launches.at(-1);
        assert.equal(reported, kind);
        assert.equal(file, "true");
        // Both happen inside the call, so in milliseconds they fit in its duration (in
        // microseconds they would not); creating a process takes more than zero time.
        assert.ok(createMs > 0, `${kind}: createMs ${createMs}`);
        assert.ok(queuedMs >= 0, `${kind}: queuedMs ${queuedMs}`);
        assert.ok(createMs + queuedMs <= callMs, `${kind}: createMs ${createMs} + queuedMs ${queuedMs} > the call's ${callMs} ms`);
      }
      await host.shutdown();
      assert.equal(launches.length, 3);
    });
  });
}
