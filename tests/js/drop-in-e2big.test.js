// A string of argv or envp too long for Linux's execve (MAX_ARG_STRLEN: 131072 bytes
// with its NUL) makes Node's spawn() throw E2BIG at the call, from every face that
// spawns: the drop-in throws the same error there, and launches what is one byte
// shorter, as Node does. Counted as neither a launch nor a fallback: nothing ran.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";
import { once } from "./support/modes.js";

const LIMIT = 131072;
const CHILD = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));

// What each face is given, for a string of `bytes` bytes (a 2-byte character in it, so
// that bytes, not UTF-16 units, are what counts).
const calls = {
  "spawn, an argument": (api, bytes) => api.spawn("true", ["é" + "x".repeat(bytes - 2)]),
  "spawn, an environment value": (api, bytes) => api.spawn("true", [], { env: { PATH: process.env.PATH, BIG: "x".repeat(bytes - 4) } }),
  "execFile, an argument": (api, bytes) => api.execFile("true", ["x".repeat(bytes)], () => {}),
  "exec, the command": (api, bytes) => api.exec(`true ${"x".repeat(bytes - 5)}`, () => {}),
  "fork, an argument": (api, bytes) => api.fork(CHILD, ["send-exit", "0", "0", "x".repeat(bytes)]),
};

function thrown(run) {
  try {
    return { child: run() };
  } catch (error) {
    return { error: { name: error.name, message: error.message, code: error.code, errno: error.errno, syscall: error.syscall, keys: Object.keys(error) } };
  }
}

async function ended(child) {
  if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  return child.exitCode;
}

for (const [name, call] of Object.entries(calls)) {
  test(`${name} of ${LIMIT} bytes throws E2BIG at the call, as node:child_process does; one byte less launches`, { skip: process.platform !== "linux" && "Linux's execve limit" }, async () => {
    const expected = thrown(() => call(childProcess, LIMIT));
    assert.equal(expected.error?.code, "E2BIG", "node:child_process throws E2BIG here");
    const before = dropIn.stats();
    assert.deepEqual(thrown(() => call(dropIn, LIMIT)), expected);
    const after = dropIn.stats();
    assert.equal(after.helper, before.helper, "not launched through the helper");
    assert.deepEqual(after.fallbackReasons, before.fallbackReasons, "not counted as a fallback");

    const under = thrown(() => call(dropIn, LIMIT - 1));
    assert.equal(under.error, undefined, "one byte less is launched");
    assert.equal(dropIn.stats().helper, after.helper + 1, "through the helper");
    assert.equal(await ended(under.child), 0);
  });
}
