// Finds the helper executable. Never from PATH or the current directory: the binary we
// run must be the one that belongs to this package. In order: the helperPath option,
// SPAWNHOST_HELPER_PATH, the platform package (@spawnhost/<os>-<arch>), and in the
// spawnhost repository only, the local build output.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HelperNotFoundError } from "../core/errors.js";
import { findPlatformHelper, isExecutable } from "./platform-package.js";
import { foreignExecutableFormat } from "./format.js";
import { knownBrokenHelper, reportBrokenHelper } from "./broken.js";

/** Environment variable that overrides where the helper is. */
export const HELPER_PATH_VARIABLE = "SPAWNHOST_HELPER_PATH";

// js/src/helper/locate.js → <repo>/build/spawnhost-helper (the development build). An
// installed copy (node_modules/spawnhost/src/) has no CMakeLists.txt two levels up.
const LOCAL_BUILD = fileURLToPath(new URL("../../../build/spawnhost-helper", import.meta.url));
const IN_REPOSITORY = existsSync(new URL("../../../CMakeLists.txt", import.meta.url)) &&
  existsSync(new URL("../../../helper/main.cpp", import.meta.url));

/**
 * Looks for the helper without throwing.
 * @param {string} [explicitPath] ProcessHost's `helperPath` option, which wins
 * @returns {{ path: string } | { problem: string, chosen: boolean }} the helper, or why
 *   there is none; `chosen`: the user named a path (option or variable) that does not work
 */
export function findHelper(explicitPath) {
  // An explicit choice that does not work is an error, not a reason to run another binary.
  for (const [path, source] of [[explicitPath, "the helperPath option"], [process.env[HELPER_PATH_VARIABLE] || undefined, HELPER_PATH_VARIABLE]]) {
    if (path === undefined) continue;
    if (isExecutable(path)) return { path };
    return { chosen: true, problem: `The spawnhost helper ${path} (from ${source}) does not exist or is not executable.` };
  }
  const platform = findPlatformHelper();
  if (platform.path) return platform;
  if (IN_REPOSITORY && isExecutable(LOCAL_BUILD)) return { path: LOCAL_BUILD };
  const local = IN_REPOSITORY ? ` In the spawnhost repository, build it with: npm run build (writes ${LOCAL_BUILD}).` : "";
  return { chosen: false, problem: `${platform.problem}${local}` };
}

/**
 * Returns the absolute path of the helper to run.
 * @param {string} [explicitPath] ProcessHost's `helperPath` option, which wins
 * @throws {HelperNotFoundError} saying what is wrong and how to fix it
 */
export function locateHelper(explicitPath) {
  const found = findHelper(explicitPath);
  if (found.path) return found.path;
  throw new HelperNotFoundError(
    `no usable spawnhost helper for ${process.platform}-${process.arch}. ${found.problem} ` +
    `Set ${HELPER_PATH_VARIABLE} to a helper's path, or use new ProcessHost({ mode: "inline" }).`,
  );
}

let warnedAboutFallback = false;

/**
 * ProcessHost's `fallback: "inline"`: true when no helper was chosen by the user and
 * none was found, so the host should run inline. Warns once per process.
 * @param {string} [explicitPath] ProcessHost's `helperPath` option
 */
export function shouldFallBackToInline(explicitPath) {
  const found = findHelper(explicitPath);
  if (found.path || found.chosen) return false;
  if (!warnedAboutFallback) {
    warnedAboutFallback = true;
    process.emitWarning(
      `spawnhost: no helper for ${process.platform}-${process.arch}, so child processes are created inline ` +
      `(node:child_process, blocking the event loop while each starts). ${found.problem} ` +
      `Pass { fallback: "error" } to make this an error, or { mode: "inline" } to choose inline mode and silence this warning.`,
      { code: "SPAWNHOST_INLINE_FALLBACK" },
    );
  }
  return true;
}

/**
 * For fallback: "inline": the helper found automatically (not named by helperPath or
 * SPAWNHOST_HELPER_PATH, which are never replaced), which the host may replace with
 * inline mode if it cannot start. `broken`: it is already known not to start here (an
 * executable of another OS, or it failed earlier in this process), warned about once.
 * @param {string} [explicitPath] ProcessHost's `helperPath` option
 * @returns {{ path: string, broken: boolean } | null} null when there is nothing to replace
 */
export function fallbackHelper(explicitPath) {
  if (explicitPath !== undefined || process.env[HELPER_PATH_VARIABLE]) return null;
  const found = findHelper();
  if (!found.path) return null;
  const format = foreignExecutableFormat(found.path);
  if (format !== null) {
    reportBrokenHelper(found.path, `it is a ${format} executable, which ${process.platform} cannot run (exec format error).`);
  }
  return { path: found.path, broken: knownBrokenHelper(found.path) !== undefined };
}
