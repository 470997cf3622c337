// The lean execFile path (launch/exec-call.js) and the result frame: it asks
// the helper for one, and one settles it. Driven with a stand-in for the channel, so
// what the call sends and needs is seen frame by frame.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runExecCall } from "../../js/src/launch/exec-call.js";
import { normalizeExecRequest } from "../../js/src/core/options.js";
import { decodeOneFrame } from "../../js/src/protocol/frames.js";

function fakeChannel() {
  const sent = [];
  let handler = null;
  return {
    sent,
    helperPid: 4242,
    ready: Promise.resolve(),
    register(h) {
      handler = h;
      return 9;
    },
    release() {},
    ref() {},
    unref() {},
    send(name, fields) {
      sent.push({ name, values: fields });
    },
    sendFrame(frame) {
      sent.push(decodeOneFrame(frame, "to_helper"));
    },
    answer: (name, values) => handler.onMessage(name, values),
  };
}

test("a plain execFile asks the helper for a result frame holding up to a third of maxBuffer", () => {
  const channel = fakeChannel();
  const call = runExecCall(channel, normalizeExecRequest("/bin/echo", ["hi"], { maxBuffer: 3000 }), {});
  const [spawn] = channel.sent;
  assert.equal(spawn.name, "spawn");
  assert.equal(spawn.values[3].result, 1000);
  channel.answer("result", [9, 0, null, 0, new Uint8Array(), new Uint8Array(), 77, 5, 1]);
  return call;
});

test("one result frame settles a plain execFile with its output, and onLaunch hears its timings", async () => {
  const channel = fakeChannel();
  const launches = [];
  const call = runExecCall(channel, normalizeExecRequest("/bin/echo", ["hi"], {}), { onLaunch: (l) => launches.push(l) });
  channel.answer("result", [9, 0, null, 0, Buffer.from("hi\n"), Buffer.from("warn"), 77, 1500, 250]);
  assert.deepEqual(await call, { stdout: "hi\n", stderr: "warn" });
  assert.deepEqual(launches, [{ kind: "exec", file: "/bin/echo", createMs: 1.5, queuedMs: 0.25 }]);
});

test("a result frame with a non-zero status rejects as execFile does, with the output", async () => {
  const channel = fakeChannel();
  const call = runExecCall(channel, normalizeExecRequest("sh", ["-c", "exit 3"], {}), {});
  channel.answer("result", [9, 3, null, 0, Buffer.from("o"), Buffer.from("e"), 77, 1, 1]);
  await assert.rejects(call, (error) => error.code === 3 && error.signal === null && error.stdout === "o" && error.stderr === "e");
});

test("output streamed as data frames before the result frame is joined ahead of what it holds", async () => {
  const channel = fakeChannel();
  const call = runExecCall(channel, normalizeExecRequest("cat", [], {}), {});
  channel.answer("data", [9, 1, Buffer.from("ab")]);
  channel.answer("result", [9, 0, null, 0, Buffer.from(""), Buffer.from("z"), 77, 1, 1]);
  assert.deepEqual(await call, { stdout: "ab", stderr: "z" });
});
