// execFile/exec behaviour, run against every mode in SPAWNHOST_TEST_MODES.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { HostExecError } from "spawnhost";
import { modes, hostFor, rejection } from "./support/modes.js";
import { scratchDir } from "./support/scratch.js";

for (const mode of modes()) {
  describe(`execFile and exec (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    test("echo prints its arguments to stdout", async () => {
      assert.deepEqual(await host.execFile("echo", ["hello", "world"]), { stdout: "hello world\n", stderr: "" });
    });

    test("exit code 3 rejects with code 3, stderr and Node's message", async () => {
      const error = await rejection(host.execFile("sh", ["-c", "echo oops >&2; exit 3"]));
      assert.ok(error instanceof HostExecError);
      assert.equal(error.code, 3);
      assert.equal(error.signal, null);
      assert.equal(error.killed, false);
      assert.equal(error.stderr, "oops\n");
      assert.equal(error.cmd, "sh -c echo oops >&2; exit 3");
      assert.equal(error.message, "Command failed: sh -c echo oops >&2; exit 3\noops\n");
    });

    test("a missing program rejects with ENOENT, errno, syscall and path", async () => {
      const error = await rejection(host.execFile("spawnhost-no-such-program", ["x"]));
      assert.ok(error instanceof HostExecError);
      assert.equal(error.code, "ENOENT");
      assert.equal(error.errno, -2);
      assert.equal(error.syscall, "spawn spawnhost-no-such-program");
      assert.equal(error.path, "spawnhost-no-such-program");
      assert.deepEqual(error.spawnargs, ["x"]);
      assert.equal(error.message, "spawn spawnhost-no-such-program ENOENT");
    });

    test("timeout kills the child and sets timedOut and killed", async () => {
      const started = Date.now();
      const error = await rejection(host.execFile("sleep", ["10"], { timeout: 200 }));
      assert.equal(error.timedOut, true);
      assert.equal(error.killed, true);
      assert.equal(error.signal, "SIGTERM");
      assert.equal(error.code, null);
      assert.ok(Date.now() - started < 3000, "the timeout ended the call");
    });

    test("killSignal is the signal a timeout sends", async () => {
      const error = await rejection(host.execFile("sleep", ["10"], { timeout: 100, killSignal: "SIGKILL" }));
      assert.equal(error.signal, "SIGKILL");
      assert.equal(error.timedOut, true);
    });

    test("cwd is the child's working directory", async () => {
      const dir = realpathSync(scratchDir("spawnhost-cwd-"));
      assert.equal((await host.execFile("pwd", [], { cwd: dir })).stdout, `${dir}\n`);
    });

    test("env replaces the child's environment", async () => {
      const { stdout } = await host.execFile("sh", ["-c", "echo \"$A|$B|${HOME-unset}\""], { env: { A: "1", B: "x=y" } });
      assert.equal(stdout, "1|x=y|unset\n");
    });

    test("without env, process.env is read at call time", async () => {
      process.env.SPAWNHOST_TEST_LATE_VARIABLE = `late-${mode}`;
      try {
        const { stdout } = await host.execFile("sh", ["-c", "echo $SPAWNHOST_TEST_LATE_VARIABLE"]);
        assert.equal(stdout, `late-${mode}\n`);
      } finally {
        delete process.env.SPAWNHOST_TEST_LATE_VARIABLE;
      }
    });

    test("exec runs its command through /bin/sh", async () => {
      const { stdout } = await host.exec("echo $((6 * 7)) | tr 4 X");
      assert.equal(stdout, "X2\n");
    });

    test("exec's error names the command string as cmd", async () => {
      const error = await rejection(host.exec("exit 5"));
      assert.equal(error.code, 5);
      assert.equal(error.cmd, "exit 5");
      assert.equal(error.message, "Command failed: exit 5\n");
    });

    test("shell: true joins file and args into one shell command", async () => {
      const { stdout } = await host.execFile("echo", ["a", "&&", "echo", "b"], { shell: true });
      assert.equal(stdout, "a\nb\n");
    });

    test("shell given as a path runs that shell", async () => {
      const { stdout } = await host.exec("echo $0", { shell: "/bin/bash" });
      assert.equal(stdout, "/bin/bash\n");
    });

    test("maxBuffer kills the child and rejects with the output up to the cap", async () => {
      const error = await rejection(host.execFile("sh", ["-c", "yes | head -c 100000"], { maxBuffer: 1000 }));
      assert.equal(error.code, "ERR_CHILD_PROCESS_STDIO_MAXBUFFER");
      assert.equal(error.message, "stdout maxBuffer length exceeded");
      assert.equal(error.stdout, "y\n".repeat(500));
    });

    test("maxBuffer applies to stderr too", async () => {
      const error = await rejection(host.execFile("sh", ["-c", "yes >&2"], { maxBuffer: 10 }));
      assert.equal(error.message, "stderr maxBuffer length exceeded");
      assert.equal(error.stderr, "y\n".repeat(5));
    });

    test("output exactly at maxBuffer is accepted", async () => {
      const { stdout } = await host.execFile("printf", ["12345"], { maxBuffer: 5 });
      assert.equal(stdout, "12345");
    });

    test("the default maxBuffer is 1 MiB: exactly that passes, one byte more rejects", async () => {
      const { stdout } = await host.execFile("head", ["-c", String(1024 * 1024), "/dev/zero"], { encoding: "buffer" });
      assert.equal(stdout.length, 1024 * 1024);
      const error = await rejection(host.execFile("head", ["-c", String(1024 * 1024 + 1), "/dev/zero"], { encoding: "buffer" }));
      assert.equal(error.message, "stdout maxBuffer length exceeded");
      assert.equal(error.stdout.length, 1024 * 1024);
    });

    test("arguments past the 4 MiB frame limit reject with E2BIG, as exec would", async () => {
      // 48 arguments of 100 KB: each under the kernel's per-argument limit, 4.8 MB in all.
      const args = Array.from({ length: 48 }, () => "a".repeat(100_000));
      const error = await rejection(host.execFile("echo", args));
      assert.equal(error.code, "E2BIG");
      assert.equal(error.syscall, "spawn"); // thrown before the launch, as Node's spawn() does
      await assert.rejects(async () => host.spawn("echo", args), { code: "E2BIG", syscall: "spawn" });
    });

    test("encoding buffer returns Buffers", async () => {
      const { stdout, stderr } = await host.execFile("printf", ["\\377\\000"], { encoding: "buffer" });
      assert.ok(Buffer.isBuffer(stdout) && Buffer.isBuffer(stderr));
      assert.deepEqual([...stdout], [0xff, 0]);
    });

    test("encoding names any Buffer encoding", async () => {
      const { stdout } = await host.execFile("printf", ["hi"], { encoding: "hex" });
      assert.equal(stdout, "6869");
    });

    test("input is written to stdin and then closed", async () => {
      const { stdout } = await host.execFile("cat", [], { input: "from input\n" });
      assert.equal(stdout, "from input\n");
    });

    test("input larger than a pipe buffer arrives whole", async () => {
      const input = Buffer.alloc(1024 * 1024, "abcdefgh");
      const { stdout } = await host.execFile("wc", ["-c"], { input });
      assert.equal(stdout.trim(), String(input.length));
    });

    test("an AbortSignal aborted during the run kills the child and rejects with AbortError", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("stop now")), 100);
      const error = await rejection(host.execFile("sleep", ["10"], { signal: controller.signal }));
      assert.equal(error.name, "AbortError");
      assert.equal(error.code, "ABORT_ERR");
      assert.equal(error.cause.message, "stop now");
      assert.equal(error.cmd, "sleep 10");
    });

    test("an AbortSignal aborted before the call rejects with AbortError", async () => {
      const error = await rejection(host.execFile("sleep", ["10"], { signal: AbortSignal.abort("early") }));
      assert.equal(error.name, "AbortError");
      assert.equal(error.cause, "early");
    });

    // The child lingers for 60 s after its answer: a call that waited for it would hit
    // the guard, and the failure names which maxBuffer kind broke early completion.
    for (const [kind, maxBuffer] of [["default", undefined], ["finite", 64 * 1024], ["Infinity", Infinity]]) {
      test(`completeWhen stdout-json resolves once stdout holds one JSON value (maxBuffer ${kind})`, async () => {
        const call = host.execFile("sh", ["-c", "echo '{\"a\":'; echo '[1,2]}'; exec sleep 60"], { completeWhen: "stdout-json", maxBuffer });
        let guard;
        const lingered = new Promise((resolve) => { guard = setTimeout(resolve, 20_000, "still waiting 20 s later"); });
        const outcome = await Promise.race([call, lingered]);
        clearTimeout(guard);
        assert.notEqual(outcome, "still waiting 20 s later", `maxBuffer ${kind}: the call waited for the child to end`);
        assert.deepEqual(JSON.parse(outcome.stdout), { a: [1, 2] });
      });
    }

    test("200 launches at concurrency 8 all succeed", async () => {
      let next = 0;
      const results = [];
      const worker = async () => {
        while (next < 200) {
          const n = next++;
          results[n] = (await host.execFile("echo", [String(n)])).stdout;
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      assert.equal(results.length, 200);
      results.forEach((stdout, n) => assert.equal(stdout, `${n}\n`));
    });
  });
}

if (modes().includes("helper")) {
  describe("maxBuffer in the helper", () => {
    // Node applies maxBuffer again to what it receives, so the result alone cannot show
    // the helper's own cap; the bytes its relaying thread wrote (/proc/<pid>/task/<tid>/io) can.
    // It relays up to three times maxBuffer: a string output's cut keeps maxBuffer - before
    // characters of the chunk that crosses, as Node's does, and a character takes up to 3 bytes.
    test("the helper relays no more than three times maxBuffer bytes of a child's output", async () => {
      const host = hostFor("helper");
      try {
        const probe = await host.spawn("sleep", ["30"], { stdio: "ignore" });
        const helper = Number(readFileSync(`/proc/${probe.pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
        // The main thread's own count: the process total also adds what reaped children wrote.
        const written = () => Number(/^wchar: (\d+)$/m.exec(readFileSync(`/proc/${helper}/task/${helper}/io`, "utf8"))[1]);
        const before = written();
        const error = await rejection(host.execFile("head", ["-c", "10000000", "/dev/zero"], { maxBuffer: 1000 }));
        const relayed = written() - before;
        assert.equal(error.message, "stdout maxBuffer length exceeded");
        // 3,000 bytes of output plus a few small frames (spawned, exit, close).
        assert.ok(relayed < 4096, `the helper wrote ${relayed} bytes for 1,000 bytes of allowed output`);
        probe.kill();
      } finally {
        await host.shutdown();
      }
    });
  });
}

