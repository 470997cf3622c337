// The packages as users get them: manifests that npm turns into a helper install with no
// build step, and a copy of spawnhost installed outside this repository that finds (or
// does not find) its helper. scripts/install-smoke does the same with real tarballs.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PLATFORM_PACKAGES, helperInPackage } from "../../js/src/helper/platform-package.js";
import { ProcessHost } from "spawnhost";
import { inProject } from "./support/project.js";
import { scratchDir } from "./support/scratch.js";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../", import.meta.url));
const readJson = (path) => JSON.parse(readFileSync(join(repo, path), "utf8"));
const jsPackage = readJson("js/package.json");
// The helper under test: the sanitizer and arm64 runs name theirs in SPAWNHOST_HELPER_PATH.
const localHelper = process.env.SPAWNHOST_HELPER_PATH || join(repo, "build/spawnhost-helper");
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall"];

const roots = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));
function tempDir(prefix) {
  const root = scratchDir(prefix);
  roots.push(root);
  return root;
}

describe("package manifests", () => {
  test("spawnhost pins every platform package, exactly at its own version, as optional", () => {
    assert.deepEqual(
      Object.entries(jsPackage.optionalDependencies).sort(),
      Object.values(PLATFORM_PACKAGES).map((name) => [name, jsPackage.version]).sort(),
    );
    assert.equal(jsPackage.dependencies["@spawnhost/linux-x64"], undefined, "a hard dependency would fail elsewhere");
  });

  test("spawnhost declares the Node versions it runs on: those where require() loads ES modules, as register needs", () => {
    assert.equal(jsPackage.engines.node, "^20.19.0 || >=22.12.0");
    assert.equal(process.features.require_module, true, `this Node (${process.version}) is in that range`);
  });

  for (const [key, name] of Object.entries(PLATFORM_PACKAGES)) {
    test(`npm/${key} is ${name}: same version, os/cpu of its platform, only the helper and notices`, () => {
      const manifest = readJson(`npm/${key}/package.json`);
      const [os, cpu] = key.split("-");
      assert.equal(manifest.name, name);
      assert.equal(manifest.version, jsPackage.version);
      assert.deepEqual(manifest.os, [os]);
      assert.deepEqual(manifest.cpu, [cpu]);
      assert.deepEqual(manifest.files, [helperInPackage(os), "README.md", "LICENSE"]);
      assert.equal(manifest.bin, undefined, "the helper must not land on anyone's PATH");
      assert.ok(existsSync(join(repo, `npm/${key}/LICENSE`)) && existsSync(join(repo, `npm/${key}/README.md`)));
    });
  }

  test("no package we publish runs anything at install time", () => {
    for (const path of ["js/package.json", ...Object.keys(PLATFORM_PACKAGES).map((key) => `npm/${key}/package.json`)]) {
      const manifest = readJson(path);
      for (const script of INSTALL_SCRIPTS) assert.equal(manifest.scripts?.[script], undefined, `${path} has a ${script} script`);
      assert.ok(!manifest.gypfile, `${path} would be built by node-gyp`);
    }
  });

  test("package-lock.json knows the platform packages, so npm ci agrees with js/package.json", () => {
    const lock = readJson("package-lock.json");
    assert.deepEqual(lock.packages.js.optionalDependencies, jsPackage.optionalDependencies);
    for (const [key, name] of Object.entries(PLATFORM_PACKAGES)) {
      const entry = lock.packages[`node_modules/${name}`];
      assert.ok(entry, `package-lock.json lacks node_modules/${name}`);
      assert.equal(entry.optional, true);
      assert.deepEqual([entry.os, entry.cpu], [[key.split("-")[0]], [key.split("-")[1]]]);
    }
  });

  test("the win32-x64 package ships bin/spawnhost-helper.exe and nothing else of ours", async () => {
    const stage = tempDir("spawnhost-pack-win-");
    cpSync(join(repo, "npm/win32-x64"), join(stage, "package"), { recursive: true });
    mkdirSync(join(stage, "package/bin"));
    writeFileSync(join(stage, "package/bin/spawnhost-helper.exe"), "MZ");
    const { stdout } = await run("npm", ["pack", "--json", "--dry-run"], { cwd: join(stage, "package") });
    const [{ files }] = JSON.parse(stdout);
    assert.deepEqual(files.map((f) => f.path).sort(), ["LICENSE", "README.md", "bin/spawnhost-helper.exe", "package.json"]);
  });

  test("npm pack keeps the helper's executable bit", async () => {
    const stage = tempDir("spawnhost-pack-");
    cpSync(join(repo, "npm/linux-x64"), join(stage, "package"), { recursive: true });
    mkdirSync(join(stage, "package/bin"));
    writeFileSync(join(stage, "package/bin/spawnhost-helper"), "#!/bin/sh\n");
    chmodSync(join(stage, "package/bin/spawnhost-helper"), 0o755);
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", stage], { cwd: join(stage, "package") });
    const [{ filename, files }] = JSON.parse(stdout);
    assert.deepEqual(files.map((f) => f.path).sort(), ["LICENSE", "README.md", "bin/spawnhost-helper", "package.json"]);
    const listing = (await run("tar", ["-tvzf", join(stage, filename), "package/bin/spawnhost-helper"])).stdout;
    assert.match(listing, /^-rwxr-xr-x /);
  });
});

// spawnhost copied into a project outside this repository, as npm would install it:
// no local build to fall back on, so only SPAWNHOST_HELPER_PATH and node_modules count.
function installedProject({ platformPackage } = {}) {
  const root = tempDir("spawnhost-installed-");
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@msgpack"), { recursive: true });
  cpSync(join(repo, "js/package.json"), join(modules, "spawnhost/package.json"));
  cpSync(join(repo, "js/src"), join(modules, "spawnhost/src"), { recursive: true });
  symlinkSync(dirname(fileURLToPath(import.meta.resolve("@msgpack/msgpack/package.json"))), join(modules, "@msgpack/msgpack"));
  if (platformPackage) {
    const dir = join(modules, PLATFORM_PACKAGES[platformPackage.key]);
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: PLATFORM_PACKAGES[platformPackage.key], version: jsPackage.version }));
    cpSync(platformPackage.helper, join(dir, "bin/spawnhost-helper"), { dereference: true });
    chmodSync(join(dir, "bin/spawnhost-helper"), 0o755);
  }
  return root;
}

const thisPlatform = `${process.platform}-${process.arch}`;

describe("finding the helper in an installed copy", { skip: !PLATFORM_PACKAGES[thisPlatform] && "no platform package for this machine" }, () => {
  test("the platform package's helper runs the launches", async () => {
    const root = installedProject({ platformPackage: { key: thisPlatform, helper: localHelper } });
    const { result, warnings } = await inProject(root, `async (ProcessHost) => {
      const { readFileSync, realpathSync } = await import("node:fs");
      const host = new ProcessHost({ fallback: "error" });
      const child = await host.spawn("sleep", ["5"]);
      const parent = readFileSync("/proc/" + child.pid + "/stat", "utf8").split(") ")[1].split(" ")[1];
      const exe = realpathSync("/proc/" + parent + "/exe");
      const { stdout } = await host.execFile("echo", ["hi"]);
      // The path the host started, as the helper's death reports it.
      const gone = new Promise((resolve) => child.once("error", resolve));
      process.kill(Number(parent), "SIGKILL");
      const { helperPath } = await gone;
      await host.shutdown();
      return { mode: host.mode, exe, helperPath, stdout };
    }`);
    const installed = join(root, "node_modules", PLATFORM_PACKAGES[thisPlatform], "bin/spawnhost-helper");
    // A wrapper script (the arm64 run's qemu-user launcher) becomes the emulator's
    // process: then only the started path can be checked, not the running executable.
    const wrapped = readFileSync(localHelper).subarray(0, 2).toString() === "#!";
    assert.deepEqual(result, {
      mode: "helper",
      exe: wrapped ? result.exe : installed,
      helperPath: installed,
      stdout: "hi\n",
    });
    assert.deepEqual(warnings, []);
  });

  test("without a platform package, hosts run inline and the process is warned once", async () => {
    const { result, warnings } = await inProject(installedProject(), `async (ProcessHost) => {
      const first = new ProcessHost();
      const second = new ProcessHost();
      const { stdout } = await second.execFile("echo", ["inline"]);
      return { modes: [first.mode, second.mode], stdout };
    }`);
    assert.deepEqual(result, { modes: ["inline", "inline"], stdout: "inline\n" });
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].code, "SPAWNHOST_INLINE_FALLBACK");
    assert.match(warnings[0].message, new RegExp(`no helper for ${thisPlatform}, so child processes are created inline`));
    assert.match(warnings[0].message, /--omit=optional/);
    assert.match(warnings[0].message, /fallback: "error"/);
  });

  test("fallback: \"error\" rejects every call with a HelperNotFoundError that says why", async () => {
    const { result, warnings } = await inProject(installedProject(), `async (ProcessHost) => {
      const host = new ProcessHost({ fallback: "error" });
      const error = await host.execFile("echo").catch((e) => e);
      return { mode: host.mode, name: error.name, message: error.message };
    }`);
    assert.equal(result.mode, "helper");
    assert.equal(result.name, "HelperNotFoundError");
    assert.match(result.message, new RegExp(`no usable spawnhost helper for ${thisPlatform}\\. The package @spawnhost/${thisPlatform}`));
    assert.match(result.message, /SPAWNHOST_HELPER_PATH/);
    assert.deepEqual(warnings, []);
  });

  test("node_modules from another machine is diagnosed in the warning", async () => {
    const other = Object.keys(PLATFORM_PACKAGES).find((key) => key !== thisPlatform);
    const root = installedProject({ platformPackage: { key: other, helper: localHelper } });
    const { warnings } = await inProject(root, "async (ProcessHost) => new ProcessHost().mode");
    assert.match(warnings[0].message, new RegExp(`holds @spawnhost/${other}, the helper for ${other}, but this machine is ${thisPlatform}`));
  });

  test("SPAWNHOST_HELPER_PATH wins over the platform package", async () => {
    const root = installedProject({ platformPackage: { key: thisPlatform, helper: "/bin/false" } });
    const { result } = await inProject(root, `async (ProcessHost) => {
      const host = new ProcessHost({ fallback: "error" });
      const { stdout } = await host.execFile("echo", ["env"]);
      await host.shutdown();
      return stdout;
    }`, { SPAWNHOST_HELPER_PATH: localHelper });
    assert.equal(result, "env\n");
  });

  test("a SPAWNHOST_HELPER_PATH that does not work is an error, never a fallback", async () => {
    const { result, warnings } = await inProject(installedProject(), `async (ProcessHost) => {
      const host = new ProcessHost();
      const error = await host.execFile("echo").catch((e) => e);
      return { mode: host.mode, name: error.name, message: error.message };
    }`, { SPAWNHOST_HELPER_PATH: "/nonexistent/spawnhost-helper" });
    assert.equal(result.mode, "helper");
    assert.equal(result.name, "HelperNotFoundError");
    assert.match(result.message, /\/nonexistent\/spawnhost-helper \(from SPAWNHOST_HELPER_PATH\) does not exist or is not executable/);
    assert.deepEqual(warnings, []);
  });
});

test("fallback accepts only \"inline\" or \"error\"", () => {
  assert.throws(() => new ProcessHost({ fallback: "download" }), { name: "TypeError", code: "ERR_INVALID_ARG_VALUE", message: /fallback/ });
});
