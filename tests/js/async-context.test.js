// Async context: a child's events (spawn, output, exit, close, IPC messages) and an
// exec call's callback or promise run in the AsyncLocalStorage context of the call that
// launched that child, as node:child_process's do, not in the context of whichever
// call happened to start the helper. Two scopes launch at once, on each face.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { AsyncLocalStorage } from "node:async_hooks";
import * as nodeChildProcess from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor } from "./support/modes.js";

const ipcChild = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));
const store = new AsyncLocalStorage();

/** Runs `scenario(note)` in two scopes at once; returns the notes whose store is not their scope's. */
async function strayNotes(scenario) {
  const stray = [];
  const inScope = (label) => store.run(label, () => scenario((what) => {
    const seen = store.getStore();
    if (seen !== label) stray.push(`${label} ${what} saw ${seen ?? "no store"}`);
  }));
  const counts = await Promise.all([inScope("a"), inScope("b")]);
  return { stray, counts };
}

// What node:child_process and the drop-in face are both asked to do in each scope.
function childProcessScenario(cp) {
  return async (note) => {
    let notes = 0;
    const counted = (what) => { notes++; note(what); };
    const spawned = new Promise((resolve) => {
      const child = cp.spawn("sh", ["-c", "echo out; echo err >&2"]);
      child.on("spawn", () => counted("spawn"));
      child.stdout.on("data", () => counted("stdout data"));
      child.stderr.on("data", () => counted("stderr data"));
      child.on("exit", () => counted("exit"));
      child.on("close", () => { counted("close"); resolve(); });
    });
    const called = new Promise((resolve) => {
      cp.execFile("sh", ["-c", "echo x"], () => { counted("execFile callback"); resolve(); });
    });
    const promised = promisify(cp.execFile)("sh", ["-c", "echo y"]).then(() => counted("promisified execFile"));
    const forked = new Promise((resolve) => {
      const child = cp.fork(ipcChild, ["send-exit", "2", "0"]);
      child.on("message", () => counted("fork message"));
      child.on("exit", () => counted("fork exit"));
      child.on("close", () => { counted("fork close"); resolve(); });
    });
    await Promise.all([spawned, called, promised, forked]);
    return notes;
  };
}

test("node:child_process: each launch's events run in its caller's context (the reference)", async () => {
  const { stray, counts } = await strayNotes(childProcessScenario(nodeChildProcess));
  assert.deepStrictEqual(stray, []);
  assert.ok(counts.every((n) => n >= 10), `every event was heard: ${counts}`);
});

test("spawnhost/child_process: each launch's events run in its caller's context", async () => {
  const { stray, counts } = await strayNotes(childProcessScenario(dropIn));
  assert.deepStrictEqual(stray, []);
  assert.ok(counts.every((n) => n >= 10), `every event was heard: ${counts}`);
  assert.equal(dropIn.stats().fallback, 0);
});

for (const mode of modes()) {
  test(`ProcessHost (${mode}): each launch's events run in its caller's context`, async () => {
    // A fresh host: the first scope's launch is the one that starts its helper.
    const host = hostFor(mode);
    after(() => host.shutdown());
    const { stray, counts } = await strayNotes(async (note) => {
      let notes = 0;
      const counted = (what) => { notes++; note(what); };
      const child = await host.spawn("sh", ["-c", "echo out; echo err >&2"]);
      const closed = new Promise((resolve) => {
        child.stdout.on("data", () => counted("stdout data"));
        child.stderr.on("data", () => counted("stderr data"));
        child.on("exit", () => counted("exit"));
        child.on("close", () => { counted("close"); resolve(); });
      });
      const executed = host.execFile("sh", ["-c", "echo x"]).then(() => counted("execFile promise"));
      const executedWithTimeout = host.execFile("sh", ["-c", "echo x"], { timeout: 60_000 }).then(() => counted("execFile (full path) promise"));
      const forked = await host.fork(ipcChild, ["send-exit", "2", "0"]);
      const forkClosed = new Promise((resolve) => {
        forked.on("message", () => counted("fork message"));
        forked.on("exit", () => counted("fork exit"));
        forked.on("close", () => { counted("fork close"); resolve(); });
      });
      await Promise.all([closed, executed, executedWithTimeout, forkClosed]);
      return notes;
    });
    assert.deepStrictEqual(stray, []);
    assert.ok(counts.every((n) => n >= 9), `every event was heard: ${counts}`);
  });
}
