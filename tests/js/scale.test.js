// Many children on one helper: one event loop serves them all, a stalled child slows
// no other, and running out of descriptors is a clear error, not a broken helper.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OUTPUT_CREDIT } from "../../js/src/protocol/spawn-request.js";
import { modes, hostFor, once } from "./support/modes.js";

const realHelper = process.env.SPAWNHOST_HELPER_PATH || fileURLToPath(new URL("../../build/spawnhost-helper", import.meta.url));
// The write system call's number for this machine's kernel (a qemu-run child makes the host's calls).
const WRITE = { x64: 1, arm64: 64 }[process.arch];

/** Whether `pid` sleeps inside write() (Linux /proc/<pid>/syscall: number, args, or "running"). */
function blockedInWrite(pid) {
  const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1][0];
  return state === "S" && Number(readFileSync(`/proc/${pid}/syscall`, "utf8").split(" ")[0]) === WRITE;
}

async function until(condition, message, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < deadline, message);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const lowNofileHelper = fileURLToPath(new URL("../fixtures/helper-low-nofile.sh", import.meta.url));

if (modes().includes("helper")) {
  describe("scale (helper)", () => {
    test("1,000 concurrent children with piped stdio all start, run and end", { timeout: 120_000 }, async () => {
      const host = hostFor("helper");
      const children = await Promise.all(
        Array.from({ length: 1000 }, () => host.spawn("sleep", ["30"], { stdio: ["pipe", "pipe", "pipe"] })),
      );
      assert.equal(new Set(children.map((c) => c.pid)).size, 1000);
      assert.ok(children.every((c) => c.exitCode === null), "all still running");
      const closed = children.map((c) => once(c, "close"));
      for (const c of children) assert.equal(c.kill(), true);
      for (const [code, signal] of await Promise.all(closed)) {
        assert.equal(code, null);
        assert.equal(signal, "SIGTERM");
      }
      await host.shutdown();
    });

    // No clock: the stalled child must be blocked in write() on its full pipe before
    // the other starts and still be blocked after all 50 MB of the other went through,
    // with no more of its output in Node than the paused stream granted.
    test("a stalled consumer does not slow another child: all of its output passes while the stalled one stays blocked", { timeout: 60_000 }, async () => {
      const host = hostFor("helper");
      try {
        // The stalled one writes forever; nobody reads it after the first chunk.
        const stalled = await host.spawn("yes", [], { stdio: ["ignore", "pipe", "ignore"] });
        await once(stalled.stdout, "readable");
        await until(() => blockedInWrite(stalled.pid), "the stalled child never blocked in write()");
        const fast = await host.spawn("head", ["-c", "50000000", "/dev/zero"], { stdio: ["ignore", "pipe", "ignore"] });
        let bytes = 0;
        fast.stdout.on("data", (chunk) => { bytes += chunk.length; });
        const [code] = await once(fast, "close");
        assert.equal(code, 0);
        assert.equal(bytes, 50_000_000);
        assert.ok(blockedInWrite(stalled.pid), "the stalled child was let write while the other ran");
        // What reached Node is what the paused stream granted (one credit), not a flood.
        const buffered = stalled.stdout.readableLength;
        assert.ok(buffered <= 2 * OUTPUT_CREDIT, `${buffered} bytes of the stalled child's output reached Node`);
        assert.equal(stalled.exitCode, null, "the stalled child is still blocked, not dead");
        stalled.kill("SIGKILL");
        await once(stalled, "close");
      } finally {
        // Also after a failure: a child left writing would hold this file open until its timeout.
        await host.shutdown();
      }
    });

    test("running out of descriptors fails that launch with EMFILE and the helper keeps serving", { timeout: 60_000 }, async () => {
      assert.ok(existsSync(realHelper), `no helper at ${realHelper}`);
      process.env.SPAWNHOST_REAL_HELPER = realHelper;
      // Relayed streams: the helper then holds three descriptors per child. Handed over,
      // it keeps none once Node has them (only a pidfd, and no pidfd without one).
      const streams = process.env.SPAWNHOST_STREAMS;
      process.env.SPAWNHOST_STREAMS = "relay";
      const host = hostFor("helper", { helperPath: lowNofileHelper });
      await host.execFile("true", []); // the helper starts, reading the variable
      if (streams === undefined) delete process.env.SPAWNHOST_STREAMS;
      else process.env.SPAWNHOST_STREAMS = streams;
      const started = [];
      let failure;
      for (let i = 0; i < 40 && !failure; i++) {
        const child = await host.spawn("sleep", ["30"], { stdio: ["pipe", "pipe", "pipe"] });
        if (child.pid === undefined) {
          [failure] = await once(child, "error");
        } else {
          started.push(child);
        }
      }
      assert.ok(failure, "48 descriptors should not hold 40 children with three pipes each");
      assert.equal(failure.code, "EMFILE");
      assert.equal(failure.syscall, "spawn sleep");
      assert.ok(started.length >= 5, `only ${started.length} children started`);
      // Freeing descriptors makes room again, on the same helper.
      const closed = started.map((c) => once(c, "close"));
      for (const c of started) c.kill("SIGKILL");
      await Promise.all(closed);
      const { stdout } = await host.execFile("echo", ["still serving"]);
      assert.equal(stdout, "still serving\n");
      await host.shutdown();
    });
  });
}
