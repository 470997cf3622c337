// Finds the prebuilt helper in the per-platform package (@spawnhost/<os>-<arch>), an
// optional dependency that npm installs only on the platform its `os`/`cpu` fields name.
// When it is not there, the diagnosis says why, as precisely as the installed files
// allow (esbuild's lib/npm/node-platform.ts showed how much that saves users):
// another platform's package (node_modules copied between machines), none at all
// (optional dependencies omitted), a binary that lost its executable bit, or a package
// from another release.
import { accessSync, constants as fsConstants, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Platform packages by `${process.platform}-${process.arch}`. */
export const PLATFORM_PACKAGES = Object.freeze({
  "linux-x64": "@spawnhost/linux-x64",
  "linux-arm64": "@spawnhost/linux-arm64",
  "win32-x64": "@spawnhost/win32-x64",
  // Experimental: built and packaged, not yet run on macOS (docs/macos.md).
  "darwin-arm64": "@spawnhost/darwin-arm64",
  "darwin-x64": "@spawnhost/darwin-x64",
});

/** Where a platform package keeps its helper, relative to its package.json. */
export const HELPER_IN_PACKAGE = "bin/spawnhost-helper";

/** The helper's place in the package for `platform`: Windows needs the .exe name. */
export function helperInPackage(platform = process.platform) {
  return platform === "win32" ? `${HELPER_IN_PACKAGE}.exe` : HELPER_IN_PACKAGE;
}

const OWN_VERSION = createRequire(import.meta.url)("../../package.json").version;

/**
 * The platform package for a platform, or undefined when none is published for it.
 * @param {string} [platform] default process.platform
 * @param {string} [arch] default process.arch
 */
export function platformPackageName(platform = process.platform, arch = process.arch) {
  return PLATFORM_PACKAGES[`${platform}-${arch}`];
}

/**
 * Looks for this platform's helper in its platform package.
 * @param {object} [how] everything is injectable, for tests
 * @param {string} [how.platform] default process.platform
 * @param {string} [how.arch] default process.arch
 * @param {(request: string) => string} [how.resolve] module resolution, default from this file
 * @param {string} [how.version] the version the helper must have, default this package's
 * @returns {{ path: string } | { problem: string, installed: boolean }} the helper's path,
 *   or what is wrong and how to fix it; `installed` tells whether this platform's
 *   package was there at all (a broken package is worth reporting even where another
 *   helper could be used instead)
 */
export function findPlatformHelper({
  platform = process.platform,
  arch = process.arch,
  resolve = createRequire(import.meta.url).resolve,
  version = OWN_VERSION,
} = {}) {
  const key = `${platform}-${arch}`;
  const name = PLATFORM_PACKAGES[key];
  if (name === undefined) {
    return {
      installed: false,
      problem: `spawnhost has no prebuilt helper for ${key} (there are helpers for ${Object.keys(PLATFORM_PACKAGES).join(", ")}). ` +
        "Build one from source (see the README, \"Supported platforms\").",
    };
  }
  const manifestPath = tryResolve(resolve, `${name}/package.json`);
  if (manifestPath === undefined) return { installed: false, problem: notInstalled(name, key, resolve, version) };

  const packageDir = dirname(manifestPath);
  const helper = join(packageDir, helperInPackage(platform));
  const found = readVersion(manifestPath);
  if (found !== version) {
    return {
      installed: true,
      problem: `spawnhost ${version} needs ${name}@${version}, but ${packageDir} holds version ${found}. ` +
        "The two packages come from different releases (a hand-edited lock file, or an install interrupted " +
        "half-way); reinstall them together: npm install spawnhost@" + version + ".",
    };
  }
  let mode;
  try {
    mode = statSync(helper).mode;
  } catch {
    return {
      installed: true,
      problem: `${name} is installed at ${packageDir}, but its helper ${helper} is missing. ` +
        "The package is incomplete; remove node_modules and reinstall.",
    };
  }
  if (!isExecutable(helper)) {
    return {
      installed: true,
      problem: `The spawnhost helper ${helper} is not executable (mode ${(mode & 0o777).toString(8).padStart(4, "0")}). ` +
        "It was probably unpacked or copied by a tool that drops file modes, or node_modules sits on a filesystem " +
        `mounted noexec; reinstall with npm, or run: chmod +x ${helper}`,
    };
  }
  return { path: helper };
}

// Which packages could be found tells apart a copied node_modules from omitted
// optional dependencies; both leave this platform's package out.
function notInstalled(name, key, resolve, version) {
  const others = Object.entries(PLATFORM_PACKAGES)
    .filter(([otherKey]) => otherKey !== key)
    .filter(([, otherName]) => tryResolve(resolve, `${otherName}/package.json`) !== undefined);
  if (others.length > 0) {
    const [otherKey, otherName] = others[0];
    return `This node_modules holds ${otherName}, the helper for ${otherKey}, but this machine is ${key} and needs ${name}. ` +
      "node_modules was probably installed on another machine (or in a container of another architecture) and copied " +
      "here. Install on the machine that runs the code: remove node_modules and run npm install (or npm ci) there; " +
      "to ship one node_modules to several platforms, install every platform's package (npm install --os=linux --cpu=arm64 …).";
  }
  return `The package ${name}, which holds the spawnhost helper for ${key}, is not installed. ` +
    "npm skips it when optional dependencies are omitted (--omit=optional, --no-optional, or omit=optional in " +
    ".npmrc), or when package-lock.json was written on another platform by an npm that left it out. Reinstall " +
    `without omitting optional dependencies (npm install), or add it directly: npm install ${name}@${version}.`;
}

function tryResolve(resolve, request) {
  try {
    return resolve(request);
  } catch {
    return undefined;
  }
}

function readVersion(manifestPath) {
  try {
    return JSON.parse(readFileSync(manifestPath, "utf8")).version;
  } catch {
    return undefined;
  }
}

/** Whether `path` exists and may be executed by this process. */
export function isExecutable(path) {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
