// Windows Node: a helper that stops answering during a blocking call (here suspended,
// NtSuspendProcess) holds the call for its `timeout` plus helperTimeoutMs at most; it
// is killed, the call throws, and the next call runs on a fresh helper (docs/sync.md,
// "Every wait is bounded"). The suspending program is tests/windows/fixtures/fixture.c.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const builtin = createRequire(import.meta.url)("node:child_process");
const nodeSpawn = builtin.spawn;
await import("spawnhost/register");
const { configure, stats } = await import("spawnhost/child_process");

const fixture = process.env.SPAWNHOST_WIN_FIXTURE ?? fileURLToPath(new URL("../../build-win32-x64/fixtures/fixture.exe", import.meta.url));

test("a helper suspended during a blocking call: killed after timeout + helperTimeoutMs, the call throws, the next works", async () => {
  assert.ok(existsSync(fixture), `no fixture at ${fixture} (built with the Windows helper; SPAWNHOST_WIN_FIXTURE names another)`);
  configure({ helperTimeoutMs: 1500 });
  // The helper is the parent of the children it starts.
  const helperPid = Number(builtin.spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.ppid))"], { encoding: "utf8" }).stdout);
  assert.ok(helperPid > 0);
  const suspender = nodeSpawn(fixture, ["suspend", String(helperPid), "30000"]);
  try {
    await new Promise((resolve, reject) => {
      let said = "";
      suspender.stdout.setEncoding("utf8").on("data", (text) => { said += text; if (said.includes("suspended")) resolve(); });
      suspender.once("exit", (code) => reject(new Error(`the suspender exited with ${code} before suspending the helper`)));
    });
    const started = performance.now();
    assert.throws(() => builtin.spawnSync("cmd.exe", ["/c", "exit 0"], { timeout: 1000 }), (error) => {
      assert.equal(error.name, "HelperExitedError");
      assert.match(error.message, /stopped answering during a synchronous call/);
      return true;
    });
    const waited = performance.now() - started;
    // A ping at the call's timeout, unanswered for helperTimeoutMs.
    assert.ok(waited >= 2400 && waited < 2500 + 5000, `the call waited ${waited} ms`);
  } finally {
    suspender.kill();
  }
  const before = stats();
  const next = builtin.spawnSync("cmd.exe", ["/c", "echo fresh"], { encoding: "utf8" });
  assert.equal(next.stdout, "fresh\r\n");
  assert.equal(stats().fallback, before.fallback, JSON.stringify(stats().fallbackReasons));
});
