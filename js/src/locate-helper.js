// Finds the helper executable. Never from PATH or the current directory: the binary we
// run must be the one that belongs to this package. Per-platform packages
// (@spawnhost/<os>-<arch>) will be looked up here once they exist.
import { accessSync, constants as fsConstants } from "node:fs";
import { fileURLToPath } from "node:url";
import { HelperNotFoundError } from "./errors.js";

/** Environment variable that overrides where the helper is. */
export const HELPER_PATH_VARIABLE = "SPAWNHOST_HELPER_PATH";

// js/src/locate-helper.js → <repo>/build/spawnhost-helper (the development build).
const LOCAL_BUILD = fileURLToPath(new URL("../../build/spawnhost-helper", import.meta.url));

/**
 * Returns the absolute path of the helper to run.
 * @param {string} [explicitPath] ProcessHost's `helperPath` option, which wins
 * @throws {HelperNotFoundError} naming every place looked at and how to fix it
 */
export function locateHelper(explicitPath) {
  const tried = [];
  const candidates = [
    [explicitPath, "the helperPath option"],
    [process.env[HELPER_PATH_VARIABLE] || undefined, `${HELPER_PATH_VARIABLE}`],
    [LOCAL_BUILD, "the local build output"],
  ];
  for (const [path, source] of candidates) {
    if (path === undefined) continue;
    if (isExecutable(path)) return path;
    tried.push(`${path} (${source})`);
    // An explicit choice that does not work is an error, not a reason to run another binary.
    if (source !== "the local build output") break;
  }
  throw new HelperNotFoundError(
    `no spawnhost helper executable for ${process.platform}-${process.arch}; looked at: ${tried.join(", ")}. ` +
    `Build it (cmake -S . -B build && cmake --build build), set ${HELPER_PATH_VARIABLE} to its path, ` +
    `or use new ProcessHost({ mode: "inline" }).`,
  );
}

function isExecutable(path) {
  try {
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}
