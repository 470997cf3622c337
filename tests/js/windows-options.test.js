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

test("env names that differ only in case: one is sent, the first in code-unit order, as child_process on Windows", () => {
  const env = { duplicate: "lowercase", DUPLICATE: "uppercase", Path: "b", PATH: "a", other: "x" };
  assert.deepEqual(normalizeSpawnRequest("prog.exe", [], { env }, win32).envPairs, ["DUPLICATE=uppercase", "PATH=a", "other=x"]);
  // The name kept is chosen before undefined values are dropped: the other is not sent either.
  assert.deepEqual(normalizeSpawnRequest("prog.exe", [], { env: { A: undefined, a: "1" } }, win32).envPairs, []);
  // Elsewhere, names are case-sensitive: all of them, in the object's order.
  assert.deepEqual(normalizeSpawnRequest("prog", [], { env }).envPairs, ["duplicate=lowercase", "DUPLICATE=uppercase", "Path=b", "PATH=a", "other=x"]);
});

test("uid or gid for a Windows helper: spawn ENOTSUP at the call, after the other options were checked", () => {
  for (const ids of [{ uid: 0 }, { gid: 5 }]) {
    assert.throws(() => normalizeSpawnRequest("prog.exe", [], ids, win32), { code: "ENOTSUP", syscall: "spawn", message: "spawn ENOTSUP" });
    assert.throws(() => normalizeExecRequest("dir", [], ids, { viaExec: true, ...win32 }), { code: "ENOTSUP", syscall: "spawn" });
  }
  assert.throws(() => normalizeSpawnRequest("prog.exe", [], { uid: 0, stdio: "nonsense" }, win32), { code: "ERR_INVALID_ARG_VALUE" });
  assert.equal(normalizeSpawnRequest("prog", [], { uid: 0 }).uid, 0);
});
