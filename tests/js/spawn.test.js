// spawn() and HostChild behaviour, run against every mode in SPAWNHOST_TEST_MODES.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { modes, hostFor, once, readAll } from "./support/modes.js";

for (const mode of modes()) {
  describe(`spawn (${mode})`, () => {
    const unhandled = [];
    const host = hostFor(mode, { onUnhandledChildError: (error, pid) => unhandled.push({ error, pid }) });
    after(() => host.shutdown());

    test("streams stdout and stderr and emits exit before close", async () => {
      const child = await host.spawn("sh", ["-c", "echo out; echo err >&2; exit 4"]);
      const events = [];
      child.on("exit", (code, signal) => events.push(["exit", code, signal]));
      const closed = once(child, "close").then((args) => events.push(["close", ...args]));
      const [stdout, stderr] = await Promise.all([readAll(child.stdout), readAll(child.stderr)]);
      await closed;
      assert.equal(stdout, "out\n");
      assert.equal(stderr, "err\n");
      assert.deepEqual(events, [["exit", 4, null], ["close", 4, null]]);
      assert.equal(child.exitCode, 4);
    });

    test("resolves once the process exists, with its pid, and emits spawn", async () => {
      const child = await host.spawn("true");
      assert.ok(Number.isInteger(child.pid) && child.pid > 0);
      await once(child, "spawn");
      await once(child, "close");
    });

    test("stdin written and ended reaches the child", async () => {
      const child = await host.spawn("cat");
      child.stdin.write("line one\n");
      child.stdin.end("line two\n");
      assert.equal(await readAll(child.stdout), "line one\nline two\n");
      await once(child, "close");
    });

    test("kill() delivers SIGTERM and reports signalCode", async () => {
      const child = await host.spawn("sleep", ["10"]);
      assert.equal(child.kill(), true);
      assert.equal(child.killed, true);
      const [code, signal] = await once(child, "exit");
      assert.equal(code, null);
      assert.equal(signal, "SIGTERM");
      assert.equal(child.signalCode, "SIGTERM");
      assert.equal(child.exitCode, null);
    });

    test("kill() takes a signal number and returns false once the child is gone", async () => {
      const child = await host.spawn("sleep", ["10"]);
      assert.equal(child.kill(9), true);
      const [, signal] = await once(child, "close");
      assert.equal(signal, "SIGKILL");
      assert.equal(child.kill(), false);
    });

    test("kill() with an unknown signal name throws ERR_UNKNOWN_SIGNAL", async () => {
      const child = await host.spawn("sleep", ["10"]);
      assert.throws(() => child.kill("SIGNOPE"), { name: "TypeError", code: "ERR_UNKNOWN_SIGNAL" });
      child.kill("SIGKILL");
      await once(child, "close");
    });

    test("a missing program resolves with pid undefined, then error, then close", async () => {
      const child = await host.spawn("spawnhost-no-such-program", ["a"]);
      assert.equal(child.pid, undefined);
      const events = [];
      child.on("error", (error) => events.push(["error", error.code, error.errno, error.syscall, error.path, error.spawnargs]));
      const [code, signal] = await once(child, "close");
      assert.deepEqual(events, [["error", "ENOENT", -2, "spawn spawnhost-no-such-program", "spawnhost-no-such-program", ["a"]]]);
      assert.equal(code, -2);
      assert.equal(signal, null);
    });

    test("an error nothing listens for goes to onUnhandledChildError", async () => {
      unhandled.length = 0;
      const child = await host.spawn("spawnhost-no-such-program-2");
      await once(child, "close");
      assert.equal(unhandled.length, 1);
      assert.equal(unhandled[0].error.code, "ENOENT");
    });

    test("stdio ignore gives null streams", async () => {
      const child = await host.spawn("echo", ["x"], { stdio: ["ignore", "ignore", "pipe"] });
      assert.equal(child.stdin, null);
      assert.equal(child.stdout, null);
      assert.ok(child.stderr);
      assert.deepEqual(child.stdio.map((s) => s === null), [true, true, false]);
      await once(child, "close");
    });

    test("spawnfile and spawnargs describe what ran", async () => {
      const child = await host.spawn("echo", ["a", "b"], { stdio: "ignore" });
      assert.equal(child.spawnfile, "echo");
      assert.deepEqual(child.spawnargs, ["echo", "a", "b"]);
      await once(child, "close");
    });

    test("shell: true runs the command through /bin/sh", async () => {
      const child = await host.spawn("echo $((1 + 1))", [], { shell: true });
      assert.equal(child.spawnfile, "/bin/sh");
      assert.deepEqual(child.spawnargs, ["/bin/sh", "-c", "echo $((1 + 1))"]);
      assert.equal(await readAll(child.stdout), "2\n");
    });

    test("argv0 sets the program's argv[0]", async () => {
      const child = await host.spawn("sh", ["-c", "echo $0"], { argv0: "custom-name" });
      assert.equal(await readAll(child.stdout), "custom-name\n");
    });

    test("timeout kills a spawned child with killSignal", async () => {
      const child = await host.spawn("sleep", ["10"], { timeout: 100, killSignal: "SIGINT" });
      const [code, signal] = await once(child, "exit");
      assert.equal(code, null);
      assert.equal(signal, "SIGINT");
      assert.equal(child.killed, true);
    });

    test("an AbortSignal kills the child and emits AbortError", async () => {
      const controller = new AbortController();
      const child = await host.spawn("sleep", ["10"], { signal: controller.signal });
      const error = once(child, "error");
      controller.abort("enough");
      const [abortError] = await error;
      assert.equal(abortError.name, "AbortError");
      assert.equal(abortError.cause, "enough");
      const [, signal] = await once(child, "close");
      assert.equal(signal, "SIGTERM");
    });

    test("detached puts the child in its own session", async () => {
      const child = await host.spawn("sh", ["-c", "ps -o sid= -p $$"], { detached: true });
      const sid = Number((await readAll(child.stdout)).trim());
      assert.equal(sid, child.pid);
    });

    test("unref() stops a child keeping Node alive, ref() restores it, and kill() still ends it", async () => {
      // The handles that keep the event loop alive (process and pipe wraps; timers and
      // immediates come and go with other work).
      const keepingAlive = () => process.getActiveResourcesInfo().filter((type) => type.endsWith("Wrap")).length;
      // A host of its own: a child of an earlier test still closing would share the
      // helper's handles, and keep them referenced whatever this child does.
      const own = hostFor(mode);
      after(() => own.shutdown());
      const child = await own.spawn("sleep", ["10"], { stdio: "ignore" });
      const referenced = keepingAlive();
      child.unref();
      const unreferenced = keepingAlive();
      child.ref();
      assert.ok(unreferenced < referenced, `unref() left ${unreferenced} of ${referenced} handles keeping Node alive`);
      assert.equal(keepingAlive(), referenced, "ref() did not restore what unref() released");
      assert.equal(child.kill(), true);
      const [code, signal] = await once(child, "close");
      assert.equal(code, null);
      assert.equal(signal, "SIGTERM");
    });

    test("output nobody listens to is drained after exit, so close still comes", async () => {
      const child = await host.spawn("sh", ["-c", "head -c 20000 /dev/zero; echo done >&2"]);
      const [code] = await once(child, "close");
      assert.equal(code, 0);
    });

    test("without onUnhandledChildError, an unheard error becomes a process warning", async () => {
      const quiet = hostFor(mode);
      const warned = once(process, "warning");
      await quiet.spawn("spawnhost-no-such-program-3");
      const [warning] = await warned;
      assert.equal(warning.code, "SPAWNHOST_UNHANDLED_CHILD_ERROR");
      assert.match(warning.message, /ENOENT/);
      await quiet.shutdown();
    });

    test("all output is delivered before close", async () => {
      const child = await host.spawn("sh", ["-c", "head -c 300000 /dev/zero"]);
      let bytes = 0;
      child.stdout.on("data", (chunk) => { bytes += chunk.length; });
      await once(child, "close");
      assert.equal(bytes, 300000);
    });
  });
}

for (const mode of modes()) {
  describe(`spawn with inherited stdio (${mode})`, async () => {
    const { spawnSync } = await import("node:child_process");
    const fixture = new URL("../fixtures/inherit-stdout.mjs", import.meta.url).pathname;
    const run = (stdio) => spawnSync(process.execPath, [fixture, mode, JSON.stringify(stdio)], { encoding: "utf8", timeout: 15000 });

    test("stdio inherit writes to the host process's own stdout and stderr", () => {
      const result = run("inherit");
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, "to-stdout\n");
      assert.equal(result.stderr, "to-stderr\n");
    });

    test("stdio given as fd numbers 0, 1, 2 inherits those descriptors", () => {
      const result = run([0, 1, "ignore"]);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, "to-stdout\n");
      assert.equal(result.stderr, "");
    });
  });
}

for (const mode of modes()) {
  describe(`spawn failures end the child's streams (${mode})`, () => {
    const host = hostFor(mode, { onUnhandledChildError: () => {} });
    after(() => host.shutdown());

    test("reading stdout of a program that could not start finishes empty", async () => {
      const child = await host.spawn("spawnhost-no-such-program-4");
      assert.equal(await readAll(child.stdout), "");
      await once(child, "close");
    });
  });
}
