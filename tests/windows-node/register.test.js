// `node.exe --import spawnhost/register` on Windows Node: an application's child_process
// calls (named, default and CommonJS imports) start real Windows children through the
// Windows helper, and give what node:child_process gives.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { test } from "node:test";
import { runNode } from "./support/win.js";

test("every way of reaching child_process launches through the Windows helper", { timeout: 120_000 }, async () => {
  const { code, stdout, stderr } = await runNode(["--import", "spawnhost/register", join(import.meta.dirname, "support/register-app.mjs")]);
  assert.equal(code, 0, stderr);
  const { ways, stats } = JSON.parse(stdout);
  const through = { helper: 1, fallback: 0 };
  assert.deepEqual(ways["named import, cmd.exe"], { result: { text: "named\r\n", code: 0, signal: null }, ...through });
  assert.deepEqual(ways["default import, node.exe"], { result: { text: "win32\n", code: 0, signal: null }, ...through });
  assert.deepEqual(ways["require, fixture"].result.code, 0);
  assert.deepEqual(JSON.parse(ways["require, fixture"].result.text).argv, ["a b"]);
  assert.deepEqual(ways["promisified execFile"], { result: "promised\r\n", ...through });
  assert.deepEqual(ways.exec, { result: "Windows_NT\r\n", ...through });
  // Node: any signal but INT, QUIT, KILL and TERM ends the child, reported as SIGKILL.
  assert.deepEqual(ways["kill SIGHUP"], { result: { code: null, signal: "SIGKILL" }, ...through });
  assert.equal(stats.mode, "helper");
  assert.equal(stats.fallback, 0, JSON.stringify(stats.fallbackReasons));
});
