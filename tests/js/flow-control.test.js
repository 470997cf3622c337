// Backpressure across the process boundary, in every mode: output nobody reads stays
// in the child's pipe, and stdin writes report a full pipe through write()/drain.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { modes, hostFor, once, readAll } from "./support/modes.js";
import { parentOf } from "./support/procfs.js";
import { scratchDir } from "./support/scratch.js";

const TEN_MB = 10 * 1024 * 1024;
const rssBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;

for (const mode of modes()) {
  describe(`flow control (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    test("a paused stdout stops the child instead of buffering its output", async () => {
      const child = await host.spawn("head", ["-c", String(TEN_MB), "/dev/zero"], { stdio: ["ignore", "pipe", "ignore"] });
      child.stdout.pause();
      let exited = false;
      child.on("exit", () => { exited = true; });
      await sleep(500);
      assert.equal(exited, false, "the child could write 10 MB nobody read");
      assert.ok(child.stdout.readableLength < 1024 * 1024, `${child.stdout.readableLength} bytes piled up in memory`);
      let bytes = 0;
      child.stdout.on("data", (chunk) => { bytes += chunk.length; });
      child.stdout.resume();
      await once(child, "close");
      assert.equal(bytes, TEN_MB);
    });

    test("destroying stdout closes it: a child that writes on ends (SIGPIPE or ECONNRESET)", async () => {
      const child = await host.spawn("yes", [], { stdio: ["ignore", "pipe", "ignore"] });
      await once(child.stdout, "data");
      child.stdout.destroy();
      const [code, signal] = await once(child, "close");
      // Piped stdio is a socketpair in both modes (libuv's choice, and the helper's):
      // with unread bytes left in it, the writer sees ECONNRESET (yes exits 1)
      // instead of EPIPE. Either way it ends rather than blocking forever.
      assert.ok(signal === "SIGPIPE" || code === 1, `ended with ${code} ${signal}`);
    });

    test("stdin: a child that does not read bounds what write() accepts, and drain waits until it reads", async () => {
      const marker = join(scratchDir("spawnhost-stdin-"), "read-now");
      // Reads nothing until the marker exists, then counts everything.
      const child = await host.spawn("sh", ["-c", 'while [ ! -e "$1" ]; do sleep 0.05; done; exec wc -c', "sh", marker]);
      const counted = readAll(child.stdout);
      // A sanitizer build's allocator keeps freed memory in quarantine: its RSS says nothing.
      const helper = mode === "helper" && process.env.SPAWNHOST_SANITIZED !== "1" ? parentOf(child.pid) : null;
      const helperBefore = helper && rssBytes(helper);
      const chunk = Buffer.alloc(256 * 1024, "x");
      let accepted = 0;
      let pending = null;
      let drainedEarly = false;
      // Write until a drain does not come within a second: then the child's pipe and
      // spawnhost's window are full. Without a window, drain keeps coming (as soon as
      // the bytes reach the helper) and this stops at 64 MiB.
      while (accepted < 64 * 1024 * 1024) {
        accepted += chunk.length;
        if (child.stdin.write(chunk)) continue;
        pending = once(child.stdin, "drain").then(() => { drainedEarly = !existsSync(marker); });
        const inTime = await Promise.race([pending.then(() => true), sleep(1000).then(() => false)]);
        if (!inTime) break;
        pending = null;
      }
      assert.ok(accepted < 8 * 1024 * 1024, `write() accepted ${accepted} bytes while the child read none`);
      assert.ok(pending, "write() never stopped accepting");
      assert.ok(child.stdin.writableLength <= chunk.length, `${child.stdin.writableLength} bytes wait in Node`);
      if (helper) {
        const grew = rssBytes(helper) - helperBefore;
        assert.ok(grew < 32 * 1024 * 1024, `the helper grew by ${grew} bytes holding input the child did not read`);
      }
      writeFileSync(marker, "");
      await pending;
      assert.equal(drainedEarly, false, "drain fired before the child read anything");
      child.stdin.end();
      assert.equal((await counted).trim(), String(accepted));
    });

    test("a buffer reused after its write callback does not change what the child gets", async () => {
      const child = await host.spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
      const out = readAll(child.stdout.setEncoding("utf8"));
      const buffer = Buffer.alloc(300_000, "a"); // more than one frame
      child.stdin.write(Buffer.alloc(0));
      await new Promise((resolve) => child.stdin.write(buffer, resolve));
      buffer.fill("b");
      child.stdin.end("!");
      assert.equal(await out, "a".repeat(300_000) + "!");
    });

    test("stdin larger than a pipe buffer reaches the child whole", async () => {
      const child = await host.spawn("wc", ["-c"]);
      const data = Buffer.alloc(3 * 1024 * 1024 + 7, "abc");
      child.stdin.end(data);
      assert.equal((await readAll(child.stdout)).trim(), String(data.length));
    });

    test("writing to a child that exited surfaces EPIPE as an error on stdin", async () => {
      const child = await host.spawn("sh", ["-c", "exec 0<&-; sleep 0.2"]);
      const failed = once(child.stdin, "error");
      const big = Buffer.alloc(256 * 1024);
      child.stdin.write(big);
      child.stdin.write(big);
      const [error] = await failed;
      assert.equal(error.code, "EPIPE");
      assert.equal(error.syscall, "write");
      await once(child, "close");
    });
  });
}
