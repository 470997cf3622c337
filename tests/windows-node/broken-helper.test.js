// A helper Windows will not start. Smart App Control refuses unsigned
// programs, and CreateProcessW's error has no libuv name: Node's spawn throws
// `spawn UNKNOWN`. Wine refuses a platform package's helper that is no program at all
// with ERROR_BAD_EXE_FORMAT, which Node 20's libuv does not name either (`spawn
// UNKNOWN`, as Smart App Control's refusal) and Node 22's names (`spawn EFTYPE`: not a
// program, a broken helper). The host must fall back to inline once, warning with the
// likely cause and the fix for the first, and asking for a bug report for the second.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
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

// The error this Node's own spawn gives for `file`.
function nodeSpawnError(file) {
  try {
    const child = spawn(file, [], { stdio: "ignore" });
    return new Promise((resolve) => child.on("error", resolve).on("exit", () => resolve(null)));
  } catch (error) {
    return error;
  }
}

test("a platform package's helper that Windows will not start: inline, one warning; a refusal names the cause and the fix", { timeout: 120_000 }, async () => {
  const { project, helper } = projectWithUnstartableHelper();
  const { code: nodeCode } = await nodeSpawnError(helper);
  const refused = ["UNKNOWN", "EPERM"].includes(nodeCode);
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
  assert.ok(message.includes(`Cause: spawn ${nodeCode}.`), message);
  if (refused) {
    assert.match(message, /Cause: spawn \w+\. Windows most likely refused to run it: Smart App Control/);
    assert.match(message, /Fix: use a spawnhost release whose helper is signed/);
    assert.doesNotMatch(message, /This is a bug/);
  } else {
    assert.equal(nodeCode, "EFTYPE", "Node names the file as no program");
    assert.match(message, /This is a bug/);
    assert.doesNotMatch(message, /Smart App Control/);
  }
});
