// Streams of Node's as a Windows child's stdio, through the drop-in: another child's
// stdout as the next child's stdin, two children writing into a third's stdin, and a
// net.Socket. Windows Node cannot send a pipe's handle to the helper, so Node carries
// those bytes itself (launch/relayed-stdio.js); the launches still go through the helper,
// and what comes out must be what node:child_process gives, in the same run.
import { strict as assert } from "node:assert";
import * as node from "node:child_process";
import { createHash } from "node:crypto";
import net from "node:net";
import { test } from "node:test";
import * as dropIn from "spawnhost/child_process";
import { fixture } from "./support/win.js";

// A launch the helper cannot take throws instead of falling back to child_process.
dropIn.configure({ fallback: "error" });

const KB = 1024;
const sha = (buffer) => createHash("sha256").update(buffer).digest("hex");
const closed = (child) => new Promise((resolve) => child.on("close", (code) => resolve(code)));
// A child whose stdout was given away: Node's never says 'close' (that stream is never
// read to its end here), so its exit is what is awaited.
const exited = (child) => new Promise((resolve) => child.on("exit", (code) => resolve(code)));

async function bytesOf(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** What each face gives for `call`, and how many launches the drop-in made through the helper. */
async function both(call) {
  const before = dropIn.stats();
  const got = { node: await call(node), dropIn: await call(dropIn) };
  const after = dropIn.stats();
  return { ...got, helper: after.helper - before.helper, fellBack: after.fallback - before.fallback };
}

test("cat | cat | cat: a child's stdout as the next one's stdin, 1 MiB in lines, no byte lost", { timeout: 120_000 }, async () => {
  const data = Buffer.alloc(1024 * KB, "x");
  for (let i = 1; i < KB; i++) data.write("\n", i * KB);
  const { node: a, dropIn: b, helper, fellBack } = await both(async (cp) => {
    const first = cp.spawn(fixture, ["cat"]);
    const second = cp.spawn(fixture, ["cat"], { stdio: [first.stdout, "pipe", "pipe"] });
    const third = cp.spawn(fixture, ["cat"], { stdio: [second.stdout, "pipe", "pipe"] });
    first.stdin.end(data);
    const [out, ...codes] = await Promise.all([bytesOf(third.stdout), exited(first), exited(second), closed(third)]);
    return { length: out.length, sha: sha(out), codes };
  });
  assert.deepEqual(a, { length: data.length, sha: sha(data), codes: [0, 0, 0] });
  assert.deepEqual(b, a);
  assert.deepEqual({ helper, fellBack }, { helper: 3, fellBack: 0 });
});

test("(cat; cat) | cat: two children's stdout into a third's stdin, which stays open for the parent", { timeout: 120_000 }, async () => {
  const { node: a, dropIn: b, helper, fellBack } = await both(async (cp) => {
    const p3 = cp.spawn(fixture, ["cat"], { stdio: ["pipe", "pipe", "inherit"] });
    const p1 = cp.spawn(fixture, ["cat"], { stdio: ["pipe", p3.stdin, "inherit"] });
    const p2 = cp.spawn(fixture, ["cat"], { stdio: ["pipe", p3.stdin, "inherit"] });
    const codes = Promise.all([exited(p1), exited(p2), closed(p3)]);
    p3.stdout.setEncoding("utf8");
    const next = () => new Promise((resolve) => p3.stdout.once("data", resolve));
    const chunks = [];
    p1.stdin.end("hello\n");
    chunks.push(await next());
    p2.stdin.end("world\n");
    chunks.push(await next());
    p3.stdin.end("foobar\n");
    chunks.push(await next());
    return { chunks, codes: await codes, stdio: [p1.stdout, p2.stdout] };
  });
  assert.deepEqual(a, { chunks: ["hello\n", "world\n", "foobar\n"], codes: [0, 0, 0], stdio: [null, null] });
  assert.deepEqual(b, a);
  assert.deepEqual({ helper, fellBack }, { helper: 3, fellBack: 0 });
});

test("net.Sockets on a named pipe as stdin and stdout: what the peer sends reaches the child, what it writes reaches the peer", { timeout: 120_000 }, async () => {
  // (A TCP socket Windows Node's spawn refuses, ENOTSUP: such a call goes to it.)
  const payload = Buffer.alloc(256 * KB, "s");
  const { node: a, dropIn: b, helper, fellBack } = await both(async (cp) => {
    const name = `\\\\.\\pipe\\spawnhost-given-test-${process.pid}-${Math.random().toString(16).slice(2)}`;
    const peers = [];
    const server = net.createServer((peer) => peers.push(peer));
    await new Promise((resolve) => server.listen(name, resolve));
    try {
      const connect = () => new Promise((resolve) => {
        const socket = net.connect(name, () => resolve(socket));
      });
      const input = await connect();
      const output = await connect();
      while (peers.length < 2) await new Promise((resolve) => setImmediate(resolve));
      const [feeder, reader] = peers;
      const got = bytesOf(reader);
      const child = cp.spawn(fixture, ["cat"], { stdio: [input, output, "ignore"] });
      const code = exited(child);
      // A Windows pipe has no half-close: the child reads EOF once the feeding end closes.
      feeder.write(payload, () => feeder.destroy());
      const exitCode = await code;
      // The child's copy of the output is gone with it; the parent's own end closes now.
      output.destroy();
      const bytes = await got;
      input.destroy();
      return { exitCode, length: bytes.length, sha: sha(bytes) };
    } finally {
      server.close();
    }
  });
  assert.deepEqual(a, { exitCode: 0, length: payload.length, sha: sha(payload) });
  assert.deepEqual(b, a);
  assert.deepEqual({ helper, fellBack }, { helper: 1, fellBack: 0 });
});
