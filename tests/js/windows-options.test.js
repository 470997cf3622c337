// How requests are shaped for a Windows helper (helperPlatform "win32"), without wine:
// the shell, verbatim arguments and fork rules that child_process applies on Windows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ProcessHost } from "spawnhost";
import { normalizeExecRequest, normalizeForkRequest, normalizeSpawnRequest } from "../../js/src/core/options.js";

const win32 = { platform: "win32" };

test("exec on win32 runs cmd.exe /d /s /c \"command\" with verbatim arguments, as child_process does", () => {
  const r = normalizeExecRequest("echo hi && dir", [], {}, { viaExec: true, ...win32 });
  assert.equal(r.spawnfile, "cmd.exe");
  assert.deepEqual(r.spawnargs, ["cmd.exe", "/d", "/s", "/c", "\"echo hi && dir\""]);
  assert.equal(r.windowsVerbatimArguments, true);
  assert.equal(r.platform, "win32");
});

test("a shell named like cmd gets cmd's flags; another shell gets -c and normal quoting", () => {
  const cmd = normalizeSpawnRequest("echo", ["x"], { shell: "C:\\Windows\\System32\\CMD.EXE" }, win32);
  assert.deepEqual(cmd.spawnargs.slice(1), ["/d", "/s", "/c", "\"echo x\""]);
  const bash = normalizeSpawnRequest("echo", ["x"], { shell: "bash.exe" }, win32);
  assert.deepEqual(bash.spawnargs, ["bash.exe", "-c", "echo x"]);
  assert.equal(bash.windowsVerbatimArguments, false);
});

test("without a shell, arguments and windowsVerbatimArguments pass through", () => {
  const r = normalizeSpawnRequest("prog.exe", ["a b"], { windowsVerbatimArguments: true, windowsHide: true }, win32);
  assert.deepEqual(r.spawnargs, ["prog.exe", "a b"]);
  assert.equal(r.windowsVerbatimArguments, true);
  assert.equal(r.windowsHide, true);
});

test("the default platform is this process's: /bin/sh on Linux", () => {
  assert.equal(normalizeExecRequest("echo hi", [], {}, { viaExec: true }).spawnfile, process.platform === "win32" ? "cmd.exe" : "/bin/sh");
});

test("fork and an ipc stdio entry are requests for a Windows helper too: the channel is fd 3, with its serialization", () => {
  const fork = normalizeForkRequest("child.js", [], { serialization: "advanced", execPath: "node.exe", execArgv: [] }, win32);
  assert.equal(fork.ipc, true);
  assert.equal(fork.serialization, "advanced");
  assert.deepEqual(fork.spawnargs, ["node.exe", "child.js"]);
  const spawn = normalizeSpawnRequest("node.exe", [], { stdio: ["pipe", "pipe", "pipe", "ipc"] }, win32);
  assert.equal(spawn.ipc, true);
  assert.equal(spawn.serialization, "json");
});

test("helperPlatform is checked: a known platform, and helper mode only", () => {
  assert.throws(() => new ProcessHost({ helperPlatform: "darwin" }), { name: "TypeError", message: /helperPlatform/ });
  assert.throws(() => new ProcessHost({ mode: "inline", helperPlatform: process.platform === "win32" ? "linux" : "win32" }), { name: "TypeError" });
  assert.doesNotThrow(() => new ProcessHost({ helperPlatform: process.platform }));
});
