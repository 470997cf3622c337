// How the helper is found in @spawnhost/<os>-<arch>, and what users are told when it is
// not: each case builds the node_modules a user would have, in a temporary directory.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { findPlatformHelper, platformPackageName, PLATFORM_PACKAGES, helperInPackage } from "../../js/src/helper/platform-package.js";
import { scratchDir } from "./support/scratch.js";

const VERSION = createRequire(import.meta.url)("../../js/package.json").version;
const roots = [];
after(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/**
 * A project directory whose node_modules holds the given platform packages.
 * @param {Record<string, { version?: string, mode?: number, binary?: boolean }>} packages by platform key
 * @returns {(request: string) => string} module resolution from inside the project
 */
function project(packages) {
  const root = scratchDir("spawnhost-platform-");
  roots.push(root);
  for (const [key, { version = VERSION, mode = 0o755, binary = true }] of Object.entries(packages)) {
    const dir = join(root, "node_modules", PLATFORM_PACKAGES[key]);
    mkdirSync(join(dir, "bin"), { recursive: true });
    const [os, cpu] = key.split("-");
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: PLATFORM_PACKAGES[key], version, os: [os], cpu: [cpu] }));
    if (binary) {
      writeFileSync(join(dir, helperInPackage(os)), "#!/bin/sh\n");
      chmodSync(join(dir, helperInPackage(os)), mode);
    }
  }
  return createRequire(join(root, "index.js")).resolve;
}

const linuxX64 = { platform: "linux", arch: "x64" };

describe("platform packages", () => {
  test("each supported platform has one package, named @spawnhost/<os>-<arch>", () => {
    assert.equal(platformPackageName("linux", "x64"), "@spawnhost/linux-x64");
    assert.equal(platformPackageName("linux", "arm64"), "@spawnhost/linux-arm64");
    // Experimental: built and packaged, not yet run on macOS (docs/macos.md).
    assert.equal(platformPackageName("darwin", "arm64"), "@spawnhost/darwin-arm64");
    assert.equal(platformPackageName("darwin", "x64"), "@spawnhost/darwin-x64");
    assert.equal(platformPackageName("freebsd", "x64"), undefined);
    assert.equal(platformPackageName("linux", "ia32"), undefined);
  });

  test("the helper is bin/spawnhost-helper in this platform's package", () => {
    const resolve = project({ "linux-x64": {} });
    const found = findPlatformHelper({ ...linuxX64, resolve });
    assert.match(found.path, /node_modules\/@spawnhost\/linux-x64\/bin\/spawnhost-helper$/);
  });

  test("the win32-x64 package serves win32-x64 with its .exe, and only it", () => {
    assert.equal(platformPackageName("win32", "x64"), "@spawnhost/win32-x64");
    const resolve = project({ "win32-x64": {} });
    assert.match(findPlatformHelper({ platform: "win32", arch: "x64", resolve }).path, /win32-x64\/bin\/spawnhost-helper\.exe$/);
    assert.equal(findPlatformHelper({ ...linuxX64, resolve }).path, undefined);
  });

  test("the arm64 package serves linux-arm64, and only it", () => {
    const resolve = project({ "linux-arm64": {} });
    assert.match(findPlatformHelper({ platform: "linux", arch: "arm64", resolve }).path, /linux-arm64\/bin\/spawnhost-helper$/);
    assert.equal(findPlatformHelper({ ...linuxX64, resolve }).path, undefined);
  });

  test("a platform without a helper is named, with the ones that have one", () => {
    const found = findPlatformHelper({ platform: "freebsd", arch: "x64", resolve: project({}) });
    assert.equal(found.path, undefined);
    assert.match(found.problem, /no prebuilt helper for freebsd-x64/);
    assert.match(found.problem, /linux-x64, linux-arm64/);
  });

  test("no platform package at all points at omitted optional dependencies", () => {
    const found = findPlatformHelper({ ...linuxX64, resolve: project({}) });
    assert.equal(found.installed, false);
    assert.match(found.problem, /@spawnhost\/linux-x64, which holds the spawnhost helper for linux-x64, is not installed/);
    assert.match(found.problem, /--omit=optional/);
    assert.match(found.problem, new RegExp(`npm install @spawnhost/linux-x64@${VERSION.replaceAll(".", "\\.")}`));
  });

  test("another platform's package means node_modules came from another machine", () => {
    const found = findPlatformHelper({ ...linuxX64, resolve: project({ "linux-arm64": {} }) });
    assert.match(found.problem, /holds @spawnhost\/linux-arm64, the helper for linux-arm64, but this machine is linux-x64/);
    assert.match(found.problem, /installed on another machine/);
    assert.match(found.problem, /remove node_modules and run npm install/);
  });

  test("a helper without its executable bit is diagnosed with its mode and the chmod that fixes it", () => {
    const found = findPlatformHelper({ ...linuxX64, resolve: project({ "linux-x64": { mode: 0o644 } }) });
    assert.equal(found.installed, true);
    assert.match(found.problem, /is not executable \(mode 0644\)/);
    assert.match(found.problem, /chmod \+x .*linux-x64\/bin\/spawnhost-helper/);
  });

  test("a platform package of another version is refused, naming both versions", () => {
    const found = findPlatformHelper({ ...linuxX64, resolve: project({ "linux-x64": { version: "0.0.1" } }) });
    assert.equal(found.path, undefined);
    assert.match(found.problem, new RegExp(`spawnhost ${VERSION} needs @spawnhost/linux-x64@${VERSION}, but .* holds version 0\\.0\\.1`));
    assert.match(found.problem, /reinstall them together/);
  });

  test("a platform package without its binary says the install is incomplete", () => {
    const found = findPlatformHelper({ ...linuxX64, resolve: project({ "linux-x64": { binary: false } }) });
    assert.match(found.problem, /is installed at .*, but its helper .* is missing/);
  });
});
