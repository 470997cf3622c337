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

/** Runs `body` with ChildProcess.prototype.kill replaced by `replace(original)`. */
async function withKill(replace, body) {
  const { prototype } = childProcess.ChildProcess;
  const original = prototype.kill;
  prototype.kill = replace(original);
  try {
    return await body();
  } finally {
    prototype.kill = original;
  }
}

test("kill() is ChildProcess.prototype.kill, so what replaces it there acts on the drop-in's children too", async () => {
  const seen = {};
  for (const [name, api] of APIS) {
    const child = api.spawn(process.execPath, lingers);
    const calls = [];
    const returned = await withKill((original) => function (...args) {
      calls.push({ self: this === child, args });
      return original.apply(this, args);
    }, () => child.kill("SIGKILL"));
    const [code, signal] = await once(child, "exit");
    seen[name] = { calls, returned, killed: child.killed, code, signal };
  }
  assert.deepEqual(seen["node:child_process"].calls, [{ self: true, args: ["SIGKILL"] }]);
  assert.deepEqual(seen["spawnhost/child_process"], seen["node:child_process"]);
});

// test-child-process-exec-kill-throws.js
test("exec past maxBuffer fails with the error its child's kill() threw, as Node's", async () => {
  const seen = {};
  for (const [name, api] of APIS) {
    const command = `"${process.execPath}" -e "console.log('foo')"`;
    seen[name] = await withKill((original) => function (...args) {
      original.apply(this, args);
      throw new Error("mock error");
    }, () => new Promise((resolve) => {
      const child = api.exec(command, { maxBuffer: 0, killSignal: "SIGKILL" }, (error, stdout, stderr) => {
        resolve({ message: error.message, cmd: error.cmd, stdout, stderr, killed: child.killed });
      });
    }));
  }
  assert.equal(seen["node:child_process"].message, "mock error");
  assert.deepEqual(seen["spawnhost/child_process"], seen["node:child_process"]);
});
