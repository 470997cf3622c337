// Lifecycle under faults: how children end at shutdown, a stopped or silent helper, a
// helper that cannot start its threads, workers and dropped hosts, deadlines at the
// edge of what timers allow, and a deleted current directory.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ProcessHost, HelperExitedError, HostShutdownError } from "spawnhost";
import { modes, hostFor, once, rejection } from "./support/modes.js";
import { alive, zombieChildrenOf } from "./support/procfs.js";
import { leasedProgram } from "./support/lease.js";

const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const realHelper = process.env.SPAWNHOST_HELPER_PATH || fileURLToPath(new URL("../../build/spawnhost-helper", import.meta.url));
const helperMode = modes().includes("helper");
const isRoot = process.getuid?.() === 0;
// A promise that fails the test by name instead of hanging it.
function within(ms, promise, what) {
  let timer;
  const deadline = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms); });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
const stubborn = "trap '' TERM; echo ready; while :; do sleep 0.05; done";

for (const mode of modes()) {
  describe(`deadlines child_process accepts (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    test("the largest timeout Node accepts runs the command, with no timer overflow", async () => {
      const warnings = [];
      const onWarning = (warning) => warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        assert.deepEqual(await host.execFile("echo", ["in time"], { timeout: 2 ** 31 - 1 }), { stdout: "in time\n", stderr: "" });
        const child = await host.spawn("echo", ["spawned"], { timeout: 2 ** 31 - 10, stdio: ["ignore", "pipe", "ignore"] });
        assert.deepEqual(await once(child, "close"), [0, null]);
      } finally {
        process.off("warning", onWarning);
      }
      assert.deepEqual(warnings.filter((name) => name === "TimeoutOverflowWarning"), []);
    });

    test("a child that exited before its timeout is not reported as killed when a grandchild holds its output", async () => {
      const result = await host.execFile("sh", ["-c", "echo out; (sleep 3) & exit 0"], { timeout: 300 });
      assert.deepEqual(result, { stdout: "out\n", stderr: "" });
    });

    test("a launch whose cwd option is missing after Node's cwd was deleted runs where Node is, as child_process", () => {
      const result = spawnSync(process.execPath, [fixture("cwd-deleted.mjs"), mode], { encoding: "utf8", timeout: 30000 });
      assert.equal(result.status, 0, result.stderr);
      const seen = JSON.parse(result.stdout);
      assert.equal(seen.childProcess, `${seen.doomed} (deleted)\n`);
      assert.equal(seen.host, seen.childProcess);
      assert.equal(seen.hostSpawn, seen.childProcess);
      assert.equal(seen.afterChdir, `${seen.next}\n`, "process.chdir() after the helper started is honoured");
    });
  });
}

if (helperMode) {
  describe("shutdown() reports how each child ended", () => {
    test("running, killed and stubborn children emit exit then close with their real end, and no error", async () => {
      const host = hostFor("helper", { killGraceMs: 300 });
      const running = await host.spawn("sleep", ["30"], { stdio: "ignore" });
      const killed = await host.spawn("sleep", ["30"], { stdio: "ignore" });
      const trapper = await host.spawn("sh", ["-c", stubborn], { stdio: ["ignore", "pipe", "ignore"] });
      await once(trapper.stdout, "data");
      trapper.stdout.resume();
      const record = (child) => {
        const events = [];
        child.on("error", (error) => events.push(["error", error.name]));
        child.on("exit", (...args) => events.push(["exit", ...args]));
        return { events, closed: once(child, "close").then((args) => events.push(["close", ...args])) };
      };
      const seen = [running, killed, trapper].map(record);
      killed.kill();
      await within(10000, host.shutdown(), "shutdown()");
      await within(5000, Promise.all(seen.map((s) => s.closed)), "close");
      assert.deepEqual(seen[0].events, [["exit", null, "SIGTERM"], ["close", null, "SIGTERM"]]);
      assert.deepEqual(seen[1].events, [["exit", null, "SIGTERM"], ["close", null, "SIGTERM"]]);
      assert.deepEqual(seen[2].events, [["exit", null, "SIGKILL"], ["close", null, "SIGKILL"]]);
      assert.equal(trapper.signalCode, "SIGKILL");
      assert.equal(running.exitCode, null);
    });

    test("an execFile still running rejects with HostShutdownError carrying the child's end", async () => {
      const host = hostFor("helper");
      const outcome = rejection(host.execFile("sh", ["-c", "echo started; exec sleep 30"]));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await host.shutdown();
      const error = await outcome;
      assert.ok(error instanceof HostShutdownError, String(error));
      assert.equal(error.signal, "SIGTERM");
    });
  });

  describe("a helper that stops answering", () => {
    test("a stopped (SIGSTOP) helper is found by the liveness check: calls and children fail, and the next call restarts", async () => {
      const host = hostFor("helper", { helperTimeoutMs: 400 });
      after(() => host.shutdown());
      const child = await host.spawn("sleep", ["30"], { stdio: "ignore" });
      const stopped = host.stats().helperPid;
      const childEvents = [];
      child.on("error", (error) => childEvents.push(error.name));
      const childClosed = once(child, "close");
      process.kill(stopped, "SIGSTOP");
      const error = await within(10000, rejection(host.execFile("true")), "execFile on a stopped helper");
      assert.ok(error instanceof HelperExitedError, String(error));
      assert.match(error.message, /stopped answering and was killed/);
      assert.equal(error.helperPath, realHelper);
      await within(5000, childClosed, "the child's close");
      assert.deepEqual(childEvents, ["HelperExitedError"]);
      assert.deepEqual(await host.execFile("echo", ["again"]), { stdout: "again\n", stderr: "" });
      assert.notEqual(host.stats().helperPid, stopped);
      assert.equal(alive(stopped), false, "the stopped helper was killed");
      assert.equal(alive(child.pid), false, "its child died with it");
    });

    test("a quiet helper that answers its liveness checks is left alone", async () => {
      // Six liveness checks while the child sleeps. 500 ms, not less: the hello is held
      // to it too, and an ASan helper starting on a loaded CI machine once took over 100.
      const host = hostFor("helper", { helperTimeoutMs: 500 });
      after(() => host.shutdown());
      const pid = (await host.execFile("true"), host.stats().helperPid);
      const child = await host.spawn("sleep", ["3"], { stdio: "ignore" });
      const events = [];
      child.on("error", (error) => events.push(["error", error.name]));
      child.on("exit", (...args) => events.push(["exit", ...args]));
      await within(10000, once(child, "close"), "close");
      assert.deepEqual(events, [["exit", 0, null]]);
      assert.equal(host.stats().helperPid, pid);
    });

    test("a silent helper: spawn with a timeout, execFile and removeTree without one, and shutdown() all settle", async () => {
      // The launch deadline (timeout + 1 s) comes before the liveness check finds it hung.
      const host = new ProcessHost({ helperPath: fixture("fake-helper-silent.mjs"), helperTimeoutMs: 1500, restart: false });
      const child = await within(10000, host.spawn("sleep", ["10"], { timeout: 100 }), "spawn with timeout");
      assert.equal(child.pid, undefined);
      assert.equal(child.killed, true);
      assert.deepEqual(await within(5000, once(child, "close"), "close"), [null, "SIGTERM"]);
      const execError = await within(10000, rejection(host.execFile("true")), "execFile without timeout");
      assert.ok(execError instanceof HelperExitedError, String(execError));
      await within(5000, host.shutdown(), "shutdown()");
    });

    test("removeTree and shutdown() on a silent helper settle", async () => {
      const host = new ProcessHost({ helperPath: fixture("fake-helper-silent.mjs"), helperTimeoutMs: 300 });
      const error = await within(10000, rejection(host.removeTree("/tmp/spawnhost-never-there")), "removeTree");
      assert.ok(error instanceof HelperExitedError, String(error));
      await within(5000, host.shutdown(), "shutdown()");
    });

    test("shutdown() of a stopped helper kills it after the grace period and settles", async () => {
      const host = hostFor("helper", { killGraceMs: 200, helperTimeoutMs: 300 });
      await host.execFile("true");
      const pid = host.stats().helperPid;
      process.kill(pid, "SIGSTOP");
      await within(10000, host.shutdown(), "shutdown()");
      assert.equal(alive(pid), false);
    });

    test("a helper that never says hello fails every call by the start-up deadline, naming its path", async () => {
      const path = fixture("fake-helper-no-hello.mjs");
      const host = new ProcessHost({ helperPath: path, helperTimeoutMs: 300, killGraceMs: 100 });
      try {
        const error = await within(10000, rejection(host.execFile("true")), "execFile");
        assert.ok(error instanceof HelperExitedError, String(error));
        assert.ok(error.message.includes(path), error.message);
        assert.match(error.message, /no hello within 300 ms/);
      } finally {
        await host.shutdown();
      }
    });
  });

  describe("the helper's own limits", () => {
    test("a timed-out child that ignores its kill signal gets SIGKILL after killGraceMs", async () => {
      const host = hostFor("helper", { killGraceMs: 200 });
      after(() => host.shutdown());
      const error = await within(10000, rejection(host.execFile("sh", ["-c", stubborn], { timeout: 300 })), "execFile");
      assert.equal(error.timedOut, true);
      assert.equal(error.killed, true);
      assert.equal(error.signal, "SIGKILL");
      const child = await host.spawn("sh", ["-c", stubborn], { timeout: 300, stdio: ["ignore", "pipe", "ignore"] });
      child.stdout.resume();
      assert.deepEqual(await within(10000, once(child, "exit"), "exit"), [null, "SIGKILL"]);
    });

    test("timeouts that cut outputs off while launches still wait in the helper's queue reject as timeouts", async () => {
      const host = hostFor("helper", { maxLaunchThreads: 1 });
      after(() => host.shutdown());
      await host.execFile("true"); // the helper is up: the requests below reach it at once
      const outcomes = await Promise.all(Array.from({ length: 40 }, () => rejection(host.execFile("sleep", ["5"], { timeout: 1 }))));
      assert.deepEqual(outcomes.map((error) => [error.name, error.timedOut]), Array(40).fill(["HostExecError", true]));
    });

    // The kill and the close_output reach the helper while its launch thread is inside
    // exec (a write lease holds exec's open of the program): the helper must hold the
    // close for the process it is still creating, not refuse it as a protocol error.
    test("outputs cut off while the helper is still creating the process: the call rejects as a timeout", async () => {
      const { program, holder } = await leasedProgram(1, "exec sleep 10");
      const host = hostFor("helper");
      after(() => host.shutdown());
      try {
        await host.execFile("true");
        const error = await rejection(host.execFile(program, [], { timeout: 50 }));
        assert.equal(error.name, "HostExecError", error.message);
        assert.equal(error.timedOut, true);
        assert.equal(error.signal, "SIGTERM");
      } finally {
        holder.kill();
      }
    });

    test("the helper applies a timeout, with its killSignal, while Node's thread is blocked", async () => {
      const host = hostFor("helper");
      after(() => host.shutdown());
      await host.execFile("true");
      // The child notes when its kill signal came (ms since the epoch), then dies of it.
      const dir = mkdtempSync(join(tmpdir(), "spawnhost-deadline-"));
      after(() => rmSync(dir, { recursive: true, force: true }));
      const noted = join(dir, "killed-at");
      const script = `trap 'date +%s%3N > "$0"; trap - INT; kill -INT $$' INT; while :; do sleep 0.05; done`;
      const call = rejection(host.execFile("sh", ["-c", script, noted], { timeout: 200, killSignal: "SIGINT" }));
      await new Promise((resolve) => setImmediate(resolve)); // the request leaves
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
      const unblockedAt = Date.now();
      const error = await call;
      assert.equal(error.signal, "SIGINT");
      assert.equal(error.timedOut, true);
      assert.equal(error.killed, true);
      const killedAt = Number(readFileSync(noted, "utf8"));
      assert.ok(killedAt < unblockedAt, `the kill came ${killedAt - unblockedAt} ms after Node's thread was free again: the helper's deadline did not end it`);
    });

    test("a launch answered while Node's thread was blocked past its deadline reports the child's real end", async () => {
      const host = hostFor("helper");
      after(() => host.shutdown());
      await host.execFile("true");
      const call = rejection(host.execFile("sh", ["-c", "exit 3"], { timeout: 100 }));
      await new Promise((resolve) => setImmediate(resolve)); // the request leaves
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
      const error = await call;
      // killed: true when this thread's timer ran before the close was read; either
      // order is Node's own (execFile's timer is cleared at close).
      assert.deepEqual([error.code, error.signal], [3, null]);
    });

    test("a launch that throws after taking a request id gives the id back", async () => {
      const host = hostFor("helper");
      after(() => host.shutdown());
      await host.execFile("true");
      const cwd = process.cwd;
      process.cwd = () => { throw Object.assign(new Error("cwd unavailable"), { code: "EPERM" }); };
      try {
        await assert.rejects(host.execFile("true"), /cwd unavailable/); // the lean path (launch/exec-call.js)
        await assert.rejects(host.spawn("true"), /cwd unavailable/); // the full one (launch/helper-launch.js)
      } finally {
        process.cwd = cwd;
      }
      assert.equal(host.stats().inFlight, 0);
      assert.equal((await host.execFile("echo", ["fine"])).stdout, "fine\n");
    });

    // The helper runs as another user: the binary under test must be reachable by one
    // (the arm64 run keeps its wrapper in a private temporary directory).
    const otherUserCanRun = isRoot && spawnSync("setpriv", ["--reuid=54321", "--regid=54321", "--clear-groups", "test", "-x", realHelper]).status === 0;
    for (const [nproc, threads] of [[1, 0], [3, 2]]) {
      const skip = !isRoot ? "needs root to start the helper as another user" : !otherUserCanRun && `another user cannot run ${realHelper}`;
      test(`a helper allowed ${nproc} process${nproc > 1 ? "es" : ""} runs on ${threads} launch thread${threads === 1 ? "" : "s"}: launches fail with EAGAIN, and it never crashes`, { skip }, async () => {
        process.env.SPAWNHOST_REAL_HELPER = realHelper;
        process.env.SPAWNHOST_TEST_NPROC = String(nproc);
        // Each launch holds its thread 200 ms: of four at once, those beyond the threads
        // there are wait, and the pool asks the system for more, which it refuses.
        process.env.SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS = "200";
        const host = new ProcessHost({ helperPath: fixture("helper-low-nproc.sh"), maxLaunchThreads: 8 });
        try {
          const errors = await Promise.all([0, 1, 2, 3].map(() => rejection(host.execFile("true"))));
          for (const error of errors) {
            assert.equal(error.code, "EAGAIN", String(error));
            assert.equal(error.syscall, "spawn true");
          }
          const pid = host.stats().helperPid;
          assert.ok(pid > 0);
          assert.equal(alive(pid), true, "the same helper still serves");
          assert.equal(readdirSync(`/proc/${pid}/task`).length - 1, threads, "launch threads beside the main thread");
        } finally {
          await host.shutdown();
          delete process.env.SPAWNHOST_TEST_NPROC;
          delete process.env.SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS;
        }
      });
    }
  });

  describe("hosts that end without shutdown()", () => {
    test("a worker that used a host leaves no zombie and no helper; its children end as at Node's exit", async () => {
      const reports = [];
      for (let i = 0; i < 3; i++) {
        const worker = new Worker(fixture("worker-uses-host.mjs"), { workerData: { killGraceMs: 200 } });
        reports.push((await once(worker, "message"))[0]);
        await worker.terminate();
      }
      assert.deepEqual(reports.map((r) => r.stdout), Array(3).fill("from a worker\n"));
      const ended = () => reports.every((r) => !alive(r.helperPid) && !alive(r.childPid));
      for (let i = 0; i < 100 && !ended(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      for (const { helperPid, childPid } of reports) {
        assert.equal(alive(helperPid), false, `helper ${helperPid} ended`);
        assert.equal(alive(childPid), false, `child ${childPid} ended`);
      }
      assert.deepEqual(zombieChildrenOf(process.pid), []);
    });

    test("hosts dropped without shutdown() end their helpers once collected, but not while a child runs", () => {
      const result = spawnSync(process.execPath, ["--expose-gc", fixture("drop-hosts.mjs"), "20"], { encoding: "utf8", timeout: 60000 });
      assert.equal(result.status, 0, result.stderr);
      const seen = JSON.parse(result.stdout);
      assert.equal(seen.helpersBefore, 20);
      assert.equal(seen.helpersAfter, 0);
      assert.ok(seen.fdsAfter <= seen.fdsAtStart + 2, `descriptors: ${seen.fdsAtStart} at start, ${seen.fdsAfter} after`);
      assert.equal(seen.helpersWithLiveChild, 1);
      assert.equal(seen.output, "got still served\n");
      assert.deepEqual(seen.closeArgs, [0, null]);
      assert.equal(seen.helpersAtEnd, 0);
    });
  });
}
