// A helper Windows will not start (issue 31, item 6). Smart App Control refuses unsigned
// programs, and CreateProcessW's error has no libuv name: Node's spawn throws
// `spawn UNKNOWN`. Wine refuses a platform package's helper that is no program at all
// with that same error, so the test installs one: the host must fall back to inline as
// for any broken helper, once, warning with the likely cause and the fix.
import { strict as assert } from "node:assert";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { root, runNode, scratchDir } from "./support/win.js";

// A project with spawnhost and @spawnhost/win32-x64 installed, copied (not linked).
function projectWithUnstartableHelper() {
  const project = scratchDir("spawnhost-refused-");
  const modules = join(project, "node_modules");
  cpSync(join(root, "js"), join(modules, "spawnhost"), { recursive: true });
  cpSync(dirname(fileURLToPath(import.meta.resolve("@msgpack/msgpack/package.json"))), join(modules, "@msgpack/msgpack"), { recursive: true });
  const platformPackage = join(modules, "@spawnhost/win32-x64");
  mkdirSync(join(platformPackage, "bin"), { recursive: true });
  const { version } = JSON.parse(readFileSync(join(root, "js/package.json"), "utf8"));
  writeFileSync(join(platformPackage, "package.json"), JSON.stringify({ name: "@spawnhost/win32-x64", version }));
  const helper = join(platformPackage, "bin/spawnhost-helper.exe");
  writeFileSync(helper, Buffer.from("MZ this is no program that Windows will start\r\n"));
  writeFileSync(join(project, "app.mjs"), `
    import { ProcessHost } from "spawnhost";
    import { execFile, stats } from "spawnhost/child_process";
    const warnings = [];
    process.on("warning", (w) => warnings.push({ code: w.code, message: w.message }));
    const host = new ProcessHost();
    const viaHost = (await host.execFile("cmd.exe", ["/c", "echo host"])).stdout;
    const viaDropIn = await new Promise((resolve, reject) => execFile("cmd.exe", ["/c", "echo drop-in"], (e, out) => (e ? reject(e) : resolve(out))));
    const mode = host.mode;
    await host.shutdown();
    await new Promise((resolve) => setImmediate(resolve));
    process.stdout.write(JSON.stringify({ viaHost, viaDropIn, mode, dropInMode: stats().mode, warnings }));
  `);
  return { project, helper };
}

test("a platform package's helper that Windows refuses to start: inline, one warning naming the cause and the fix", { timeout: 120_000 }, async () => {
  const { project, helper } = projectWithUnstartableHelper();
  const env = { ...process.env };
  delete env.SPAWNHOST_HELPER_PATH;  // the helper is the package's, so it may be replaced
  const { code, stdout, stderr } = await runNode(["--no-warnings", "app.mjs"], { cwd: project, env });
  assert.equal(code, 0, stderr);
  const got = JSON.parse(stdout);
  assert.deepEqual([got.viaHost, got.viaDropIn, got.mode, got.dropInMode], ["host\r\n", "drop-in\r\n", "inline", "inline"]);
  assert.equal(got.warnings.length, 1, JSON.stringify(got.warnings));
  const [{ code: warningCode, message }] = got.warnings;
  assert.equal(warningCode, "SPAWNHOST_BROKEN_HELPER");
  assert.ok(message.includes(`the helper ${helper} could not start`), message);
  assert.match(message, /Cause: spawn UNKNOWN\. Windows most likely refused to run it: Smart App Control/);
  assert.match(message, /Fix: use a spawnhost release whose helper is signed/);
  assert.doesNotMatch(message, /This is a bug/);
});
