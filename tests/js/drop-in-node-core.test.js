// What Node's own child_process tests (v20, scripts/test-node-core) found the drop-in
// face doing differently, each checked against node:child_process on the running Node.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { once } from "./support/modes.js";

const APIS = [["node:child_process", childProcess], ["spawnhost/child_process", dropIn]];
const lingers = ["-e", "setTimeout(() => {}, 2000)"];

// test-child-process-execfile.js
test("execFile's callback settles on a `close` someone emits on its child, as Node's does", async () => {
  const seen = {};
  for (const [name, api] of APIS) {
    let callback;
    const called = new Promise((resolve) => { callback = (error, stdout, stderr) => resolve({ error, stdout, stderr }); });
    const child = api.execFile(process.execPath, lingers, callback);
    const exited = once(child, "exit");
    child.kill();
    child.emit("close", -1, null);
    const { error, stdout, stderr } = await called;
    seen[name] = { message: error.message, code: error.code, killed: error.killed, signal: error.signal, cmd: error.cmd, stdout, stderr };
    await exited;
  }
  assert.equal(seen["node:child_process"].code, "EPERM");
  assert.deepEqual(seen["spawnhost/child_process"], seen["node:child_process"]);
});

// test-child-process-bad-stdio.js
test("execFile's callback gets an `error` someone emits on its child, that very object", async () => {
  const seen = {};
  for (const [name, api] of APIS) {
    let callback;
    const called = new Promise((resolve) => { callback = (error, stdout, stderr) => resolve({ error, stdout, stderr }); });
    const child = api.execFile(process.execPath, lingers, callback);
    const exited = once(child, "exit");
    const emitted = new Error("foo");
    child.emit("error", emitted);
    const { error, stdout, stderr } = await called;
    seen[name] = { same: error === emitted, cmd: error.cmd, stdout, stderr };
    child.kill();
    await exited;
  }
  assert.equal(seen["node:child_process"].same, true);
  assert.deepEqual(seen["spawnhost/child_process"], seen["node:child_process"]);
});

// test-child-process-stdin.js
test("a child's stdin reads as not readable, as Node's socket does", async () => {
  const seen = {};
  for (const [name, api] of APIS) {
    const child = api.spawn("cat");
    seen[name] = { readable: child.stdin.readable, writable: child.stdin.writable };
    child.stdin.end();
    await once(child, "close");
  }
  assert.equal(seen["node:child_process"].readable, false);
  assert.deepEqual(seen["spawnhost/child_process"], seen["node:child_process"]);
});
