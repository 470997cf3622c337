// A Windows child's stdio on Node's own named pipes (js/src/helper/stream-pipes.js,
// helper/windows/node_pipes.cpp) against node:child_process and the relay, in the same
// run: the same bytes both ways, large payloads, ends, and a pipe that refuses clients
// that are not the helper's.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { ProcessHost } from "spawnhost";
import { describeStreamPipeChecks } from "../js/support/stream-pipe-checks.js";
import { env, fixture, helperPath, once } from "./support/win.js";

// The choice is read when the host's helper starts: info() starts it.
async function hostWith(streams) {
  process.env.SPAWNHOST_STREAMS = streams;
  try {
    const host = new ProcessHost({ helperPath, fallback: "error" });
    await host.info();
    return host;
  } finally {
    delete process.env.SPAWNHOST_STREAMS;
  }
}

/** Everything a readable stream gives, as one Buffer. */
async function bytesOf(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const sha = (buffer) => createHash("sha256").update(buffer).digest("hex");

describe("a Windows child's stdio on Node's own pipes", { timeout: 300_000 }, () => {
  let relay, handover, ways;
  before(async () => {
    relay = await hostWith("relay");
    handover = await hostWith("handover");
    ways = {
      child_process: async (...a) => spawn(...a),
      relay: (...a) => relay.spawn(...a),
      handover: (...a) => handover.spawn(...a),
    };
  });
  after(async () => {
    await relay?.shutdown();
    await handover?.shutdown();
  });

  test("the streams are net.Sockets on the pipe as child_process's are; relayed ones are not", async () => {
    for (const [name, launch] of Object.entries(ways)) {
      const child = await launch(fixture, ["cat"], { env });
      const sockets = [child.stdin, child.stdout, child.stderr].map((s) => s instanceof net.Socket);
      assert.deepEqual(sockets, name === "relay" ? [false, false, false] : [true, true, true], name);
      child.stdin.end();
      assert.deepEqual(await once(child, "close"), [0, null], name);
    }
  });

  test("bytes both ways: 8 MiB of random bytes through cat come back whole, in order", async () => {
    const input = randomBytes(8 * 1024 * 1024);
    const results = {};
    for (const [name, launch] of Object.entries(ways)) {
      const child = await launch(fixture, ["cat"], { env });
      const output = bytesOf(child.stdout);
      // In pieces of varied size, honouring 'drain'.
      for (let at = 0, k = 0; at < input.length; k++) {
        const size = [1, 4096, 65536, 300000][k % 4];
        if (!child.stdin.write(input.subarray(at, at + size))) await once(child.stdin, "drain");
        at += size;
      }
      child.stdin.end();
      const [out, [code]] = await Promise.all([output, once(child, "close")]);
      results[name] = { code, length: out.length, sha: sha(out) };
    }
    const expected = { code: 0, length: input.length, sha: sha(input) };
    assert.deepEqual(results, { child_process: expected, relay: expected, handover: expected });
  });

  test("large output: 48 MiB on stdout, and stderr beside it, as child_process reads them", async () => {
    const size = 48 * 1024 * 1024;
    const results = {};
    for (const [name, launch] of Object.entries(ways)) {
      const big = await launch(fixture, ["out", String(size)], { env });
      const [out, err] = await Promise.all([bytesOf(big.stdout), bytesOf(big.stderr), once(big, "close")]);
      const small = await launch(fixture, ["err", "to stderr"], { env });
      const [out2, err2] = await Promise.all([bytesOf(small.stdout), bytesOf(small.stderr), once(small, "close")]);
      results[name] = { length: out.length, sha: sha(out), err: err.length, out2: out2.toString(), err2: err2.toString() };
    }
    assert.equal(results.child_process.length, size);
    assert.deepEqual(results.relay, results.child_process);
    assert.deepEqual(results.handover, results.child_process);
  });

  test("ends: stdin ended at once gives cat EOF; each output ends before 'close', after the last byte", async () => {
    const results = {};
    for (const [name, launch] of Object.entries(ways)) {
      const child = await launch(fixture, ["cat"], { env });
      const events = [];
      child.stdout.on("end", () => events.push("stdout end"));
      child.stderr.on("end", () => events.push("stderr end"));
      child.stdout.resume();
      child.stderr.resume();
      child.stdin.end();
      const [code] = await once(child, "close");
      events.push("close");
      results[name] = { code, ends: events.filter((e) => e !== "close").sort(), last: events.at(-1) };
    }
    const expected = { code: 0, ends: ["stderr end", "stdout end"], last: "close" };
    assert.deepEqual(results, { child_process: expected, relay: expected, handover: expected });
  });

  test("a child that exits without reading: a write to its stdin ends as child_process's does, and nothing hangs", async () => {
    const results = {};
    for (const [name, launch] of Object.entries(ways)) {
      const child = await launch(fixture, ["exit", "0"], { env });
      child.stdout.resume();
      child.stderr.resume();
      await once(child, "exit");
      // More than the pipe's buffer holds: the write cannot succeed by being buffered.
      const written = new Promise((resolve) => {
        const returned = child.stdin.write(Buffer.alloc(1 << 20), (error) => resolve({ returned, callback: error?.code ?? "ok" }));
      });
      const timedOut = new Promise((resolve) => setTimeout(resolve, 20_000, "no callback in 20 s"));
      results[name] = await Promise.race([written, timedOut]);
      await once(child, "close");
    }
    assert.equal(typeof results.child_process, "object", "child_process's write ended");
    assert.equal(typeof results.relay, "object", "the relay's write ended");
    assert.deepEqual(results.handover, results.child_process);
  });
});

// Who may connect: the checks tests/js/stream-pipes.test.js runs on a Unix socket, here
// on named pipes.
describeStreamPipeChecks(() => `\\\\.\\pipe\\spawnhost-streams-test-${process.pid}-${randomBytes(8).toString("hex")}`);

// Last in the file: trackEnv's Proxy stays in process.env for the rest of this process.
test("under trackEnv, a launch's own pipe is no change to process.env: the next launch does not read it again", async () => {
  const real = process.env; // the object beneath the Proxy the host puts in its place
  const host = new ProcessHost({ helperPath, fallback: "error", trackEnv: true });
  await host.info(); // its helper started: a launch's streams are then its pipe's sockets at once
  const echo = async () => {
    const child = await host.spawn("cmd.exe", ["/c", "echo %SPAWNHOST_T_UNTRACKED%"]);
    assert.ok(child.stdout instanceof net.Socket, "the child's stdout is not on a pipe of Node's");
    const [out] = await Promise.all([bytesOf(child.stdout), once(child, "close")]);
    return out.toString().trim();
  };
  try {
    assert.equal(await echo(), "%SPAWNHOST_T_UNTRACKED%"); // cmd leaves an unset name as it is
    assert.notEqual(process.env, real, "trackEnv's Proxy is not in process.env");
    // Beneath the Proxy, as a native addon's setenv would: seen only when process.env is read again.
    real.SPAWNHOST_T_UNTRACKED = "read again";
    assert.equal(await echo(), "%SPAWNHOST_T_UNTRACKED%", "the launch after one with a pipe of its own read process.env again");
    assert.equal(await echo(), "%SPAWNHOST_T_UNTRACKED%");
    process.env.SPAWNHOST_T_WRITTEN = "1"; // a write by JavaScript: the next launch reads it all
    assert.equal(await echo(), "read again");
  } finally {
    delete real.SPAWNHOST_T_UNTRACKED;
    delete real.SPAWNHOST_T_WRITTEN;
    await host.shutdown();
  }
});
