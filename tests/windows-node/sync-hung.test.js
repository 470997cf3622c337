// Windows Node: a helper that stops answering during a blocking call (here suspended,
// NtSuspendProcess) holds the call no longer than its own `timeout` (and a moment's ping),
// which then ends as Node's does, with ETIMEDOUT; the next call finds the helper hung,
// and runs on a fresh one (docs/sync.md, "Every wait is bounded"); one suspended before, while Node opens its sync pipe, holds
// it for helperTimeoutMs. The suspending program is tests/windows/fixtures/fixture.c.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const builtin = createRequire(import.meta.url)("node:child_process");
const nodeSpawn = builtin.spawn;
await import("spawnhost/register");
const { configure, stats } = await import("spawnhost/child_process");

// helperTimeoutMs here: also the main channel's bound on the helper's start, which
// under wine on a loaded machine takes seconds. SLACK_MS: this thread's own delays.
const ANSWER_MS = 4000;
const SLACK_MS = 8000;
const fixture = process.env.SPAWNHOST_WIN_FIXTURE ?? fileURLToPath(new URL("../../build-win32-x64/fixtures/fixture.exe", import.meta.url));

/** Suspends process `pid` until the returned child is killed (or 30 s pass). */
async function suspend(pid) {
  const suspender = nodeSpawn(fixture, ["suspend", String(pid), "30000"]);
  await new Promise((resolve, reject) => {
    let said = "";
    suspender.stdout.setEncoding("utf8").on("data", (text) => { said += text; if (said.includes("suspended")) resolve(); });
    suspender.once("exit", (code) => reject(new Error(`the suspender exited with ${code} before suspending ${pid}`)));
  });
  return suspender;
}

/** A fresh shared host, its helper started by an async launch; the helper's pid. */
async function freshHelper(helperTimeoutMs) {
  configure({ helperTimeoutMs });
  const ppid = await new Promise((resolve, reject) => builtin.execFile(process.execPath, ["-e", "process.stdout.write(String(process.ppid))"],
    (error, stdout) => (error ? reject(error) : resolve(Number(stdout)))));
  assert.ok(ppid > 0);
  return ppid;
}

test("a helper suspended before the first blocking call: the pipe's opening gives up within helperTimeoutMs", async () => {
  assert.ok(existsSync(fixture), `no fixture at ${fixture} (built with the Windows helper; SPAWNHOST_WIN_FIXTURE names another)`);
  const suspender = await suspend(await freshHelper(ANSWER_MS));
  try {
    const started = performance.now();
    assert.throws(() => builtin.spawnSync("cmd.exe", ["/c", "exit 0"]), new RegExp(`did not open its sync pipe to Node within ${ANSWER_MS} ms`));
    const waited = performance.now() - started;
    assert.ok(waited >= ANSWER_MS && waited < ANSWER_MS + SLACK_MS, `the call waited ${waited} ms`);
  } finally {
    suspender.kill();
  }
});

test("a helper suspended during a blocking call: the call ends at its timeout with ETIMEDOUT, the next runs on a fresh helper", async () => {
  assert.ok(existsSync(fixture), `no fixture at ${fixture} (built with the Windows helper; SPAWNHOST_WIN_FIXTURE names another)`);
  const helperPid = await freshHelper(ANSWER_MS);
  assert.equal(builtin.spawnSync("cmd.exe", ["/c", "exit 0"]).status, 0); // the sync pipe is open
  const suspender = await suspend(helperPid);
  try {
    const started = performance.now();
    const result = builtin.spawnSync("cmd.exe", ["/c", "exit 0"], { timeout: 1000 });
    const waited = performance.now() - started;
    assert.equal(result.error?.code, "ETIMEDOUT", String(result.error));
    assert.equal(result.status, null);
    // Before the child exists the timeout does not end the call while the helper answers
    // (Node's timer starts after uv_spawn); a ping after half of helperTimeoutMs of
    // silence, unanswered as long, does: before the helper is judged hung.
    assert.ok(waited >= 1000 && waited < 1000 + ANSWER_MS, `the call waited ${waited} ms`);
  } finally {
    suspender.kill();
  }
  const before = stats();
  const next = builtin.spawnSync("cmd.exe", ["/c", "echo fresh"], { encoding: "utf8" });
  assert.equal(next.stdout, "fresh\r\n");
  assert.equal(stats().fallback, before.fallback, JSON.stringify(stats().fallbackReasons));
});
