// Backpressure across the process boundary, in every mode: output nobody reads stays
// in the child's pipe, and stdin writes report a full pipe through write()/drain.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { modes, hostFor, once, readAll } from "./support/modes.js";

const TEN_MB = 10 * 1024 * 1024;

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

    test("stdin write() returns false while the child does not read, and drain follows", async () => {
      const child = await host.spawn("sh", ["-c", "sleep 0.5; wc -c"]);
      const chunk = Buffer.alloc(1024, "x");
      let written = 0;
      while (child.stdin.write(chunk)) {
        written += chunk.length;
        assert.ok(written < 4 * 1024 * 1024, "write() never reported backpressure");
      }
      written += chunk.length;
      await once(child.stdin, "drain");
      child.stdin.end();
      assert.equal((await readAll(child.stdout)).trim(), String(written));
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
