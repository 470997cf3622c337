// The `result` frame: a launch whose caller needs only its outcome is
// answered with one frame, the exit, the output and the timings together. Driven over
// the raw protocol, as Node's channel drives the helper, so what is counted is frames.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { locateHelper } from "../../js/src/helper/locate.js";
import { FrameReader } from "../../js/src/protocol/frames.js";
import { encodeSpawnFrame } from "../../js/src/protocol/spawn-frame.js";
import { EXIT_FLAG } from "../../js/src/protocol/generated.js";
import { resultHold } from "../../js/src/launch/exec-call.js";

// A helper on pipes; `until(id, name)` collects the messages about `id` up to one
// named `name`. The helper's hello is read first.
async function rawHelper() {
  const helper = spawn(locateHelper(), [], { stdio: ["pipe", "pipe", "inherit"] });
  const reader = new FrameReader("to_node");
  const messages = [];
  let wake = () => {};
  helper.stdout.on("data", (chunk) => {
    messages.push(...reader.push(chunk));
    wake();
  });
  const next = async () => {
    while (messages.length === 0) await new Promise((resolve) => (wake = resolve));
    return messages.shift();
  };
  assert.equal((await next()).name, "hello");
  return {
    spawn: (id, file, args, options) => helper.stdin.write(encodeSpawnFrame(id, file, args, options)),
    // Every message (pongs aside) up to the one named `name` about `id`.
    async until(name, id) {
      const seen = [];
      for (;;) {
        const m = await next();
        if (m.name === "pong") continue;
        if (m.name === "error") throw new Error(`the helper refused: ${m.values[2]}`);
        if (m.name === "spawn_error" && name !== "spawn_error" && m.values[0] === id) throw new Error(`launch ${id} failed: ${m.values[1]}`);
        seen.push(m);
        if (m.name === name && m.values[0] === id) return seen;
      }
    },
    async close() {
      helper.stdin.end();
      await new Promise((resolve) => helper.on("close", resolve));
    },
  };
}

const text = (bytes) => Buffer.from(bytes).toString();

test("an exec with small output is answered with exactly one frame, the result", async () => {
  const h = await rawHelper();
  h.spawn(5, "sh", ["-c", "printf out; printf err >&2; exit 7"], { result: 1024 });
  const seen = await h.until("result", 5);
  assert.deepEqual(seen.map((m) => m.name), ["result"]);
  const [id, status, signal, flags, stdout, stderr, pid, createUs, queuedUs] = seen[0].values;
  assert.deepEqual([id, status, signal, flags, text(stdout), text(stderr)], [5, 7, null, 0, "out", "err"]);
  assert.ok(pid > 0 && Number.isInteger(createUs) && Number.isInteger(queuedUs));
  await h.close();
});

test("nothing about a launch follows its result frame", async () => {
  const h = await rawHelper();
  h.spawn(5, "/bin/true", [], { result: 1024 });
  await h.until("result", 5);
  h.spawn(6, "/bin/true", [], { result: 1024 });
  const between = await h.until("result", 6);
  assert.deepEqual(between.map((m) => [m.name, m.values[0]]), [["result", 6]]);
  await h.close();
});

test("output past what the result frame holds comes first as data frames, in order", async () => {
  const h = await rawHelper();
  h.spawn(5, "sh", ["-c", "printf 0123456789; printf e >&2"], { result: 4 });
  const seen = await h.until("result", 5);
  const streamed = seen.filter((m) => m.name === "data").map((m) => text(m.values[2])).join("");
  assert.equal(streamed, "0123456789");
  const result = seen.at(-1).values;
  assert.deepEqual([text(result[4]), text(result[5])], ["", "e"]);
  assert.deepEqual(seen.filter((m) => m.name !== "data" && m.name !== "result"), []);
  await h.close();
});

test("a child ended by a signal: the result frame carries the signal name and no status", async () => {
  const h = await rawHelper();
  h.spawn(5, "sh", ["-c", "kill -KILL $$"], { result: 1024 });
  const [, status, signal] = (await h.until("result", 5)).at(-1).values;
  assert.deepEqual([status, signal], [null, "SIGKILL"]);
  await h.close();
});

test("the result frame carries the maxBuffer flag and exactly the bytes up to the cap", async () => {
  const h = await rawHelper();
  h.spawn(5, "sh", ["-c", "printf 0123456789; sleep 5"], { result: 1024, max_buffer: 4 });
  const [, , signal, flags, stdout] = (await h.until("result", 5)).at(-1).values;
  assert.equal(flags, EXIT_FLAG.max_buffer_stdout);
  assert.equal(signal, "SIGTERM");
  assert.equal(text(stdout), "0123");
  await h.close();
});

test("the result frame carries the timeout flag of a child the helper ended", async () => {
  const h = await rawHelper();
  // A deadline the launch cannot pass while it waits for a launch thread (that one is
  // skipped: spawn_error ETIMEDOUT), even with the helper under qemu on a loaded machine.
  h.spawn(5, "sleep", ["30"], { result: 1024, timeout_ms: 1000 });
  const [, status, signal, flags] = (await h.until("result", 5)).at(-1).values;
  assert.deepEqual([status, signal, flags], [null, "SIGTERM", EXIT_FLAG.timed_out]);
  await h.close();
});

test("a missing program with the result option is answered with spawn_error alone", async () => {
  const h = await rawHelper();
  h.spawn(5, "/nonexistent/program", [], { result: 1024 });
  const seen = await h.until("spawn_error", 5);
  assert.deepEqual(seen.map((m) => [m.name, m.values[1]]), [["spawn_error", "ENOENT"]]);
  await h.close();
});

test("the bytes held for the result never exceed maxBuffer as execFile counts them", () => {
  assert.equal(resultHold({ maxBuffer: 1024 * 1024, encoding: "utf8" }), 262144);
  assert.equal(resultHold({ maxBuffer: 30, encoding: "utf8" }), 10);
  assert.equal(resultHold({ maxBuffer: 30, encoding: "buffer" }), 30);
  assert.equal(resultHold({ maxBuffer: Infinity, encoding: "utf8" }), 262144);
  assert.equal(resultHold({ maxBuffer: 0, encoding: "utf8" }), 0);
});
