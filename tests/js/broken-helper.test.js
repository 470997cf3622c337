// A platform package whose helper cannot start (the darwin helpers are built
// here but never run here). With fallback "inline" the host runs inline, warned once,
// and no call is lost or run twice; with fallback "error" the calls reject with the
// helper's error; a helper named by helperPath or SPAWNHOST_HELPER_PATH is never replaced.
// Each case runs in a fresh Node process, in a copy of spawnhost installed outside this
// repository (no local build to find), so each has its own once-per-process warning.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PLATFORM_PACKAGES } from "../../js/src/helper/platform-package.js";
import { foreignExecutableFormat } from "../../js/src/helper/format.js";
import { inProject } from "./support/project.js";
import { scratchDir } from "./support/scratch.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const fixture = (name) => join(repo, "tests/fixtures", name);
const { version } = JSON.parse(readFileSync(join(repo, "js/package.json"), "utf8"));
const thisPlatform = `${process.platform}-${process.arch}`;
const roots = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

// The first bytes of an arm64 Mach-O executable (MH_MAGIC_64, CPU_TYPE_ARM64,
// MH_EXECUTE): what @spawnhost/darwin-arm64 holds.
function machOFile(path) {
  const header = Buffer.alloc(4096);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeUInt32LE(0x0100000c, 4);
  header.writeUInt32LE(2, 12);
  writeFileSync(path, header);
}

// A project whose node_modules holds spawnhost and this platform's package, with
// `writeHelper` writing the package's bin/spawnhost-helper.
function projectWithHelper(writeHelper) {
  const root = scratchDir("spawnhost-broken-");
  roots.push(root);
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@msgpack"), { recursive: true });
  cpSync(join(repo, "js/package.json"), join(modules, "spawnhost/package.json"));
  cpSync(join(repo, "js/src"), join(modules, "spawnhost/src"), { recursive: true });
  symlinkSync(dirname(fileURLToPath(import.meta.resolve("@msgpack/msgpack/package.json"))), join(modules, "@msgpack/msgpack"));
  const dir = join(modules, PLATFORM_PACKAGES[thisPlatform]);
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: PLATFORM_PACKAGES[thisPlatform], version }));
  const helper = join(dir, "bin/spawnhost-helper");
  writeHelper(helper);
  chmodSync(helper, 0o755);
  return { root, helper };
}

const copyOf = (source) => (path) => cpSync(source, path);

// Two hosts, one after the other: both inline, one warning, each call run once.
const TWO_HOSTS = `async (ProcessHost) => {
  const first = new ProcessHost({ helperTimeoutMs: 1000 });
  const one = await first.execFile("echo", ["first"]);
  const second = new ProcessHost({ helperTimeoutMs: 1000 });
  const two = await second.execFile("echo", ["second"]);
  const info = await first.info();
  await first.shutdown();
  await second.shutdown();
  return { modes: [first.mode, second.mode], stdout: one.stdout + two.stdout, info: [info.mode, info.helper] };
}`;

function assertOneWarning(warnings, helper, cause) {
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.equal(warnings[0].code, "SPAWNHOST_BROKEN_HELPER");
  assert.ok(warnings[0].message.includes(`the helper ${helper} could not start`), warnings[0].message);
  assert.match(warnings[0].message, cause);
  assert.match(warnings[0].message, /please report it/);
}

describe("a platform package whose helper cannot start", { skip: !PLATFORM_PACKAGES[thisPlatform] && "no platform package for this machine" }, () => {
  test("a Mach-O helper is recognised before any call, and hosts run inline with one warning", async () => {
    const { root, helper } = projectWithHelper(machOFile);
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost();
      const modeAtOnce = host.mode;
      const { stdout } = await host.execFile("echo", ["inline"]);
      return { modeAtOnce, stdout, helperPid: host.stats().helperPid };
    }`);
    assert.deepEqual(result, { modeAtOnce: "inline", stdout: "inline\n", helperPid: 0 });
    assertOneWarning(warnings, helper, /it is a Mach-O executable, which linux cannot run/);
  });

  test("a helper that exits before its hello: inline, the warning quotes its stderr", async () => {
    const { root, helper } = projectWithHelper(copyOf(fixture("broken-helper-exits.sh")));
    const { result, warnings } = await inProject(root, TWO_HOSTS);
    assert.deepEqual(result, { modes: ["inline", "inline"], stdout: "first\nsecond\n", info: ["inline", "none"] });
    assertOneWarning(warnings, helper, /exited with code 3[\s\S]*Library not loaded/);
  });

  test("a helper that crashes before its hello: inline, the warning names the signal", async () => {
    const { root, helper } = projectWithHelper(copyOf(fixture("broken-helper-crashes.sh")));
    const { result, warnings } = await inProject(root, TWO_HOSTS);
    assert.deepEqual(result, { modes: ["inline", "inline"], stdout: "first\nsecond\n", info: ["inline", "none"] });
    assertOneWarning(warnings, helper, /killed by SIGSEGV/);
  });

  test("a helper of no known format cannot be executed: inline", async () => {
    const { root, helper } = projectWithHelper((path) => writeFileSync(path, Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0, 0])));
    const { result, warnings } = await inProject(root, TWO_HOSTS);
    assert.deepEqual(result, { modes: ["inline", "inline"], stdout: "first\nsecond\n", info: ["inline", "none"] });
    assertOneWarning(warnings, helper, /spawnhost helper .* (exited|could not be run|ended)/);
  });

  test("a helper that never says hello is killed after helperTimeoutMs, and the host runs inline", async () => {
    const { root, helper } = projectWithHelper(copyOf(fixture("broken-helper-silent.sh")));
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost({ helperTimeoutMs: 500 });
      const started = performance.now();
      const { stdout } = await host.execFile("echo", ["late"]);
      return { mode: host.mode, stdout, waited: performance.now() - started >= 400 };
    }`);
    assert.deepEqual(result, { mode: "inline", stdout: "late\n", waited: true });
    assertOneWarning(warnings, helper, /sent no hello within 500 ms/);
  });

  test("calls made while the helper was starting each run exactly once, inline", async () => {
    const { root } = projectWithHelper(copyOf(fixture("broken-helper-exits.sh")));
    const { result } = await inProject(root, `async (ProcessHost) => {
      const { readFileSync } = await import("node:fs");
      const host = new ProcessHost();
      const log = "calls.log";
      const calls = [];
      for (let i = 0; i < 6; i++) calls.push(host.execFile("sh", ["-c", 'echo "$1" >> ' + log, "sh", "call" + i]));
      calls.push(host.spawn("sh", ["-c", 'echo spawned >> ' + log]).then((child) => new Promise((resolve) => child.on("close", resolve))));
      calls.push(host.exec("echo exec >> " + log));
      const settled = await Promise.allSettled(calls);
      return { statuses: settled.map((s) => s.status), lines: readFileSync(log, "utf8").trim().split("\\n").sort(), mode: host.mode };
    }`, { SPAWNHOST_TEST_DIE_AFTER: "0.3" });
    assert.deepEqual(result.statuses, Array(8).fill("fulfilled"));
    assert.deepEqual(result.lines, ["call0", "call1", "call2", "call3", "call4", "call5", "exec", "spawned"]);
    assert.equal(result.mode, "inline");
  });

  test("the drop-in face: a spawnSync while the helper fails to start runs inline, once, and later calls too", async () => {
    const { root, helper } = projectWithHelper(copyOf(fixture("broken-helper-exits.sh")));
    const { result, warnings } = await inProject(root, `async () => {
      const { spawnSync, execFile } = await import("spawnhost/child_process");
      const { readFileSync } = await import("node:fs");
      const sync = spawnSync("sh", ["-c", "echo sync >> calls.log; echo sync"], { encoding: "utf8" });
      // The helper's end is seen by the event loop: let it run before the next call.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const later = await new Promise((resolve, reject) => execFile("sh", ["-c", "echo later >> calls.log; echo later"], (e, out) => (e ? reject(e) : resolve(out))));
      return { sync: [sync.status, sync.stdout, sync.error?.message ?? null], later, log: readFileSync("calls.log", "utf8") };
    }`, { SPAWNHOST_OPTIONS: JSON.stringify({ helperTimeoutMs: 1000 }) });
    assert.deepEqual(result, { sync: [0, "sync\n", null], later: "later\n", log: "sync\nlater\n" });
    // The blocked thread sees the helper's end itself: its end of the sync socket closed.
    assertOneWarning(warnings, helper, /went away during a synchronous call \(its sync channel ended\)\. This is a bug/);
  });

  test("fallback: \"error\" rejects with the helper's own error, and warns nothing", async () => {
    const { root, helper } = projectWithHelper(copyOf(fixture("broken-helper-exits.sh")));
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost({ fallback: "error", restart: false });
      const error = await host.execFile("echo", ["no"]).catch((e) => e);
      return { mode: host.mode, name: error.name, message: error.message };
    }`);
    assert.equal(result.mode, "helper");
    assert.equal(result.name, "HelperExitedError");
    assert.ok(result.message.includes(`spawnhost helper ${helper} exited with code 3`), result.message);
    assert.deepEqual(warnings, []);
  });

  test("a broken helper named by helperPath is never replaced", async () => {
    const { root } = projectWithHelper(copyOf(fixture("broken-helper-exits.sh")));
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost({ helperPath: ${JSON.stringify(fixture("broken-helper-exits.sh"))}, restart: false });
      const error = await host.execFile("echo", ["no"]).catch((e) => e);
      return { mode: host.mode, name: error.name };
    }`);
    assert.deepEqual(result, { mode: "helper", name: "HelperExitedError" });
    assert.deepEqual(warnings, []);
  });

  test("a broken helper named by SPAWNHOST_HELPER_PATH is never replaced, not even a Mach-O", async () => {
    const { root, helper } = projectWithHelper(machOFile);
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost({ restart: false });
      const error = await host.execFile("echo", ["no"]).catch((e) => e);
      return { mode: host.mode, name: error.name, message: error.message };
    }`, { SPAWNHOST_HELPER_PATH: helper });
    assert.equal(result.mode, "helper");
    assert.equal(result.name, "HelperExitedError");
    // libuv hands a file execve calls ENOEXEC to /bin/sh, which finds no command in it.
    assert.match(result.message, /exited with code 127|could not be run/);
    assert.deepEqual(warnings, []);
  });
});

describe("foreignExecutableFormat", () => {
  const dir = scratchDir("spawnhost-format-");
  roots.push(dir);
  const macho = join(dir, "macho");
  machOFile(macho);
  const script = join(dir, "script");
  writeFileSync(script, "#!/bin/sh\n");
  const pe = join(dir, "pe");
  writeFileSync(pe, "MZ\x90\x00rest");
  const elf = join(dir, "elf");
  writeFileSync(elf, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));

  test("names the format another OS runs, and nothing for this OS's format, scripts or missing files", () => {
    assert.equal(foreignExecutableFormat(macho, "linux"), "Mach-O");
    assert.equal(foreignExecutableFormat(pe, "linux"), "PE");
    assert.equal(foreignExecutableFormat(elf, "darwin"), "ELF");
    assert.equal(foreignExecutableFormat(elf, "linux"), null);
    assert.equal(foreignExecutableFormat(macho, "darwin"), null);
    assert.equal(foreignExecutableFormat(script, "linux"), null);
    assert.equal(foreignExecutableFormat(join(dir, "missing"), "linux"), null);
  });
});

describe("refusedStartAdvice", () => {
  const thrown = (code, syscall = "spawn") => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });

  test("names Windows' policies and the fix for the errors a refused program gives, on Windows only", async () => {
    const { refusedStartAdvice } = await import("../../js/src/helper/start-refused.js");
    for (const code of ["UNKNOWN", "EPERM"]) assert.match(refusedStartAdvice(thrown(code), "win32"), /Smart App Control[\s\S]*signed[\s\S]*Fix:/);
    assert.match(refusedStartAdvice(thrown("EACCES", "spawn C:\\h.exe"), "win32"), /Smart App Control/);
    assert.equal(refusedStartAdvice(thrown("UNKNOWN"), "linux"), null);
    assert.equal(refusedStartAdvice(thrown("ENOENT"), "win32"), null);
    assert.equal(refusedStartAdvice(thrown("UNKNOWN", "write"), "win32"), null);
    assert.equal(refusedStartAdvice(new Error("it exited"), "win32"), null);
    assert.equal(refusedStartAdvice(undefined, "win32"), null);
  });
});
