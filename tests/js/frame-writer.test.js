// FrameWriter writes frames straight to the pipe's descriptor while the stream holds
// nothing, and through the stream otherwise. Whatever path each part takes,
// the reader must get every byte once, in the order written, each onFlushed must run
// once, and end() must not end the stream before what is queued.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { FrameWriter } from "../../js/src/helper/frame-writer.js";
import { scratchDir } from "./support/scratch.js";

// A part whose bytes say where it belongs: a 32-bit index, then filler made from it.
const part = (index, size) => {
  const bytes = Buffer.alloc(size, index & 0xff);
  bytes.writeUInt32BE(index, 0);
  return bytes;
};

// `cat` that starts reading only after `delayS`: until then the pipe fills and stays full.
function slowReader(delayS) {
  const child = spawn("sh", ["-c", `sleep ${delayS}; exec cat`], { stdio: ["pipe", "pipe", "inherit"] });
  const chunks = [];
  child.stdout.on("data", (chunk) => chunks.push(chunk));
  const output = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", () => resolve(Buffer.concat(chunks)));
  });
  return { input: child.stdin, output };
}

test("parts written while the pipe is full arrive whole and in order, and every onFlushed runs once", async () => {
  const { input, output } = slowReader(0.3);
  const writer = new FrameWriter(input);
  const expected = [];
  const flushed = [];
  // Several ticks of writes: the first fill the pipe straight, the rest queue in the
  // stream behind what it could not take, and a tick after the pipe drained again
  // must still come after everything queued before it.
  for (let tick = 0; tick < 40; tick++) {
    const parts = [part(tick * 2, 24 * 1024), part(tick * 2 + 1, 40 * 1024)];
    expected.push(...parts);
    writer.write(parts, () => flushed.push(tick));
    await new Promise((resolve) => setImmediate(resolve));
    if (tick === 20) await new Promise((resolve) => setTimeout(resolve, 400)); // the reader runs now
  }
  writer.end();
  const got = await output;
  assert.equal(got.length, Buffer.concat(expected).length);
  assert.ok(got.equals(Buffer.concat(expected)), "the bytes arrive in the order written");
  assert.deepEqual(flushed, Array.from({ length: 40 }, (_, i) => i));
});

test("a part written after the pipe drained, while the stream still holds older parts, comes after them", async () => {
  const { input, output } = slowReader(0.1);
  const writer = new FrameWriter(input);
  const older = Array.from({ length: 64 }, (_, i) => part(i, 32 * 1024)); // 2 MiB: more than the pipe holds
  writer.write(older);
  assert.equal(writer.flushNow(), false, "the pipe is full: the rest waits in the stream");
  // The reader empties the pipe meanwhile; Node's loop has not run, so the stream has not
  // written its queue yet: a straight write now would overtake it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
  const newer = part(1000, 1000);
  writer.write([newer]);
  writer.flushNow();
  writer.end();
  assert.ok((await output).equals(Buffer.concat([...older, newer])));
});

test("end() writes what this tick queued before it ends the stream", async () => {
  const { input, output } = slowReader(0);
  const writer = new FrameWriter(input);
  const parts = [part(1, 100), part(2, 200), part(3, 300)];
  writer.write(parts.slice(0, 2));
  writer.write(parts.slice(2));
  writer.end();
  assert.ok((await output).equals(Buffer.concat(parts)));
});

test("flushNow() hands the tick's parts to the kernel at once", async () => {
  const { input, output } = slowReader(0);
  const writer = new FrameWriter(input);
  writer.write([part(5, 1000)]);
  assert.equal(writer.flushNow(), true, "nothing is left queued in Node");
  assert.equal(input.writableLength, 0);
  writer.end();
  assert.ok((await output).equals(part(5, 1000)));
});

test("a stream without a descriptor is written through the stream, in order", async () => {
  const stream = new PassThrough();
  const chunks = [];
  stream.on("data", (chunk) => chunks.push(chunk));
  const writer = new FrameWriter(stream);
  const parts = [part(1, 10), part(2, 20), part(3, 30)];
  let flushed = 0;
  writer.write(parts.slice(0, 1), () => flushed++);
  writer.write(parts.slice(1), () => flushed++);
  assert.equal(chunks.length, 0, "nothing leaves before the end of the tick");
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(Buffer.concat(chunks).equals(Buffer.concat(parts)));
  assert.equal(flushed, 2);
});

test("after the stream closed its descriptor, nothing is written to the file that reuses its number", async () => {
  const child = spawn("sh", ["-c", "exec cat > /dev/null"], { stdio: ["pipe", "ignore", "inherit"] });
  const input = child.stdin;
  const writer = new FrameWriter(input);
  const fdBefore = input._handle.fd;
  input.on("error", () => {}); // the stream's own complaint about a write after destroy
  input.destroy();
  await new Promise((resolve) => setImmediate(resolve)); // the handle is closed
  const path = join(scratchDir("spawnhost-frame-writer-"), "other");
  const fd = openSync(path, "w");
  try {
    assert.equal(fd, fdBefore, "the file got the closed descriptor's number (the lowest free one)");
    writer.write([part(9, 100)]);
    writer.flushNow();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(readFileSync(path).length, 0);
  } finally {
    closeSync(fd);
    child.kill();
  }
});
