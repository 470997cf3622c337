// A launch the system refuses with a Win32 error that has no errno name: Node's
// child_process says `spawn UNKNOWN`, and so does the helper, which also writes the
// error's number to its stderr (shown with SPAWNHOST_DEBUG=1), so such a failure can be
// traced (docs/architecture.md, "Where wine differs"). The device name NUL as the
// program is one: CreateProcessW fails with ERROR_BAD_DEV_TYPE (66) under wine. The
// same for a terminal's child (spawnhost/pty), started by the same CreateProcessW.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { runNode } from "./support/win.js";

test("a program CreateProcessW refuses with an unnamed error: spawn UNKNOWN as child_process, and the Win32 error on the helper's stderr", { timeout: 120_000 }, async () => {
  const script = `
    const { execFile } = require("node:child_process");
    const fields = (e) => e && { code: e.code, syscall: e.syscall };
    // Node throws this one at the call (spawn throws the errors it does not emit later).
    const nodeOutcome = () => new Promise((resolve) => {
      try { execFile("NUL", [], (e) => resolve(fields(e))); } catch (e) { resolve(fields(e)); }
    });
    (async () => {
      const { ProcessHost } = await import("spawnhost");
      const host = new ProcessHost({ fallback: "error" });
      const node = await nodeOutcome();
      const ours = await host.execFile("NUL", []).then(() => null, fields);
      await host.shutdown();
      process.stdout.write(JSON.stringify({ node, ours }));
    })();
  `;
  const { code, stdout, stderr } = await runNode(["-e", script], { env: { ...process.env, SPAWNHOST_DEBUG: "1" } });
  assert.equal(code, 0, stderr);
  const { node, ours } = JSON.parse(stdout);
  assert.deepEqual(node, { code: "UNKNOWN", syscall: "spawn" });
  assert.deepEqual(ours, node);
  assert.match(stderr, /spawnhost-helper: launch failed at stage exec with Win32 error \d+\r?\n/);
});

test("a terminal whose program CreateProcessW refuses so: an error event with UNKNOWN, and the Win32 error on the helper's stderr too", { timeout: 120_000 }, async () => {
  const script = `
    (async () => {
      const pty = await import("spawnhost/pty");
      const term = pty.spawn("NUL", [], {});
      const code = await new Promise((resolve) => term.on("error", (e) => resolve(e.code)));
      process.stdout.write(JSON.stringify({ code }));
      process.exit(0);
    })();
  `;
  const { code, stdout, stderr } = await runNode(["-e", script], { env: { ...process.env, SPAWNHOST_DEBUG: "1" } });
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(stdout), { code: "UNKNOWN" });
  assert.match(stderr, /spawnhost-helper: launch failed at stage exec with Win32 error \d+\r?\n/);
});
