// Windows Node: spawnhost/pty has no Windows terminals yet (docs/pty.md, "Platforms":
// ConPTY is not built, and wine 8 does not wire a pseudo console to the child's standard
// handles nor resize it). What is promised instead is tested here: spawn() refuses at the
// call, clearly, and the Windows helper answers a terminal request it is sent anyway
// with ENOTSUP, the launch settled and the helper still serving. The last test keeps
// docs/pty.md's account of wine's ConPTY true (tests/windows/fixtures/conpty-probe.c):
// when a wine release changes it, that test fails and says to look again.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { ProcessHost } from "spawnhost";
import * as pty from "spawnhost/pty";
import { normalizeSpawnRequest } from "../../js/src/core/options.js";
import { env, fixture, helperPath, once, readAll } from "./support/win.js";

test("spawn() throws ERR_FEATURE_UNAVAILABLE_ON_PLATFORM, naming ConPTY and docs/pty.md", () => {
  for (const start of [pty.spawn, pty.createTerminal]) {
    assert.throws(() => start("cmd.exe", ["/c", "echo hi"], { cols: 80, rows: 25, env }), (error) => {
      assert.equal(error.code, "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM");
      assert.match(error.message, /^spawnhost\/pty: Windows terminals \(ConPTY\) are not built yet; see docs\/pty\.md$/);
      return true;
    });
  }
});

test("the Windows helper answers a terminal request with ENOTSUP and keeps serving", async () => {
  const host = new ProcessHost({ mode: "helper", fallback: "error", helperPath });
  try {
    const request = normalizeSpawnRequest("cmd.exe", ["/c", "echo hi"], { stdio: ["pipe", "pipe", "ignore"], env },
      { platform: "win32", givenAvailable: false });
    request.pty = [80, 25];
    // ENOTSUP is one of the errors Node's spawn() throws rather than emits: the launch
    // rejects, as spawnhost's other faces do with it.
    const { child, launched } = host._startLaunch(request);
    setImmediate(() => child._release());
    await assert.rejects(launched, { code: "ENOTSUP", syscall: "spawn" });
    assert.equal(child.pid, undefined);
    // The same helper still starts plain children.
    const plain = await host.spawn("cmd.exe", ["/c", "echo hi"], { env });
    const [out, [code]] = await Promise.all([readAll(plain.stdout), once(plain, "close")]);
    assert.equal(out.trim(), "hi");
    assert.equal(code, 0);
  } finally {
    await host.shutdown();
  }
});

// Built beside fixture.exe by scripts/test-windows-node.
const probe = join(dirname(fixture), "conpty-probe.exe");
async function probeConPty(command) {
  const { stdout } = await promisify(execFile)(probe, [command], { env, timeout: 60_000 });
  return Object.fromEntries(stdout.trim().split(/\r?\n/).map((line) => line.split(/=(.*)/s).slice(0, 2)));
}

test("wine's ConPTY, as docs/pty.md tells it: a console without the child's stdio, and no resize", async () => {
  // The child's standard output does not reach the pseudo console...
  const plain = await probeConPty("echo hi");
  assert.equal(plain.create, "0x00000000");
  assert.equal(plain.exit, "0");
  assert.doesNotMatch(plain.output, /hi/);
  // ...while the console itself works: what is written to CONOUT$ comes out of its pipe.
  const viaConsole = await probeConPty("echo hi > CONOUT$ & exit 5");
  assert.equal(viaConsole.exit, "5");
  assert.match(viaConsole.output, /hi/);
  // ResizePseudoConsole: E_NOTIMPL.
  assert.equal(viaConsole.resize, "0x80004001");
});
