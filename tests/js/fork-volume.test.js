// The IPC channel under volume: many small messages in order, one very large message,
// and a child that does not read while the parent sends (memory must stay bounded).
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { modes, hostFor, once } from "./support/modes.js";
import { parentOf } from "./support/procfs.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));

/** Resident memory of a process in bytes, from /proc. */
function rssOf(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
}

// A full garbage collection, for the heap that is really in use: V8 from Node 24 on
// lets 150 MB of collectable serialization garbage pile up before it collects, which
// says nothing about what the IPC path holds.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc");
const liveHeap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

/** Sends each message after the previous answer and checks every answer in turn. */
async function pingPong(child, count, makeMessage) {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const message = makeMessage(i);
    child.send(message);
    const [answer] = await once(child, "message");
    assert.deepStrictEqual(answer, message, `message ${i} came back changed or out of order`);
  }
  return count / ((performance.now() - started) / 1000);
}

for (const mode of modes()) {
  describe(`fork under volume (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    test("10,000 JSON messages go back and forth in order, unchanged", async (t) => {
      const child = await host.fork(CHILD, ["echo"]);
      const perSecond = await pingPong(child, 10_000, (i) => ({ seq: i, text: `message ${i} ü日🚀`, list: [i, -i - 1, i / 3] }));
      t.diagnostic(`${Math.round(perSecond)} round trips/s`);
      child.disconnect();
      await once(child, "close");
    });

    test("10,000 advanced messages go back and forth in order, unchanged", async (t) => {
      const child = await host.fork(CHILD, ["echo"], { serialization: "advanced" });
      const perSecond = await pingPong(child, 10_000, (i) => ({ seq: BigInt(i), at: new Date(i), tags: new Set([i, `t${i}`]), bytes: new Uint8Array([i & 255]) }));
      t.diagnostic(`${Math.round(perSecond)} round trips/s`);
      child.disconnect();
      await once(child, "close");
    });

    // Our framing is only on the parent's side: a big message from the child exercises
    // both parsers, one to the child the chunking of `send` frames.
    test("a 50 MB message reaches the child intact", async () => {
      const child = await host.fork(CHILD, ["digest"], { serialization: "advanced" });
      const big = "0123456789abcdef".repeat(50 * 1024 * 1024 / 16);
      child.send(big);
      const [answer] = await once(child, "message");
      assert.deepEqual(answer, { length: big.length, sha256: createHash("sha256").update(big).digest("hex") });
      child.disconnect();
      await once(child, "close");
    });

    for (const serialization of ["json", "advanced"]) {
      test(`a 50 MB message from the child arrives intact (${serialization})`, async () => {
        const child = await host.fork(CHILD, ["digest"], { serialization });
        child.send({ make: 50 * 1024 * 1024 });
        const [answer] = await once(child, "message");
        assert.equal(answer.length, 50 * 1024 * 1024);
        assert.ok(answer === "y".repeat(50 * 1024 * 1024), "the message came back changed");
        child.disconnect();
        await once(child, "close");
      });
    }

    test("200 MB to a child that does not read: send() pushes back and memory stays bounded", async () => {
      const child = await host.fork(CHILD, ["stall", "1000"]);
      try {
        const relay = parentOf(child.pid); // the helper, or this process inline
        const chunk = "z".repeat(1024 * 1024);
        const start = { heap: liveHeap(), arrayBuffers: process.memoryUsage().arrayBuffers, relay: rssOf(relay) };
        // What waits to be written sits in Buffers (arrayBuffers, counted live: after a
        // collection, as dead ones stay counted until one); the helper's memory is its
        // RSS. Both are sampled while the child does not read.
        let peak = { arrayBuffers: 0, relay: 0 };
        const sample = () => {
          collectGarbage();
          const { arrayBuffers } = process.memoryUsage();
          peak = { arrayBuffers: Math.max(peak.arrayBuffers, arrayBuffers - start.arrayBuffers), relay: Math.max(peak.relay, rssOf(relay) - start.relay) };
        };
        const sampler = setInterval(sample, 20);
        let written = 0;
        let writtenWhenReading = null;
        child.once("message", () => { writtenWhenReading = written; });
        for (let i = 0; i < 200; i++) {
          let more = true;
          const done = new Promise((resolve, reject) => {
            more = child.send(chunk, (error) => (error ? reject(error) : resolve()));
          });
          if (!more) await done;
          written = i + 1;
        }
        child.send("end");
        const [answer] = await once(child, "message");
        clearInterval(sampler);
        sample();
        assert.deepEqual(answer, { bytes: 200 * 1024 * 1024 });
        // While the child was not reading, the parent was held back after a few MB.
        assert.ok(writtenWhenReading !== null && writtenWhenReading <= 8, `${writtenWhenReading} MB were sent before the child read anything`);
        const MB = 1024 * 1024;
        assert.ok(peak.arrayBuffers < 32 * MB, `array buffers grew by ${Math.round(peak.arrayBuffers / MB)} MB`);
        const retained = liveHeap() - start.heap;
        assert.ok(retained < 16 * MB, `the live heap kept ${Math.round(retained / MB)} MB after the 200 MB`);
        // A sanitizer build's allocator keeps freed memory in quarantine (256 MB by
        // default), so its RSS says nothing; the normal run holds the helper to 32 MB.
        const sanitized = process.env.SPAWNHOST_SANITIZED === "1";
        if (relay !== process.pid && !sanitized) assert.ok(peak.relay < 32 * MB, `the helper grew by ${Math.round(peak.relay / MB)} MB`);
      } finally {
        // Also when an assertion failed: a connected child would keep this file alive.
        if (child.connected) child.disconnect();
        child.kill();
      }
      await once(child, "close");
    });
  });
}
