// Shared by the Windows Node suite (tests/windows-node/*.test.js): node:test files run by
// Windows node.exe under wine (scripts/test-windows-node), where child processes are
// real Windows programs: cmd.exe, node.exe and the mingw fixture (tests/windows/fixtures).
// scripts/test-windows-node sets SPAWNHOST_HELPER_PATH (the Windows helper, as a Windows
// path) and SPAWNHOST_WIN_FIXTURE; a file run without them fails, never skips.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../../..");
export const helperPath = process.env.SPAWNHOST_HELPER_PATH;
export const fixture = process.env.SPAWNHOST_WIN_FIXTURE ?? join(root, "build-win32-x64/fixtures/fixture.exe");
assert.equal(process.platform, "win32", "the Windows Node suite runs on Windows Node (bash scripts/test-windows-node)");
assert.ok(helperPath, "SPAWNHOST_HELPER_PATH must name the Windows helper (bash scripts/test-windows-node sets it)");

/** A small environment for Windows programs, so tests do not depend on the one wine made. */
export const env = { PATH: "C:\\windows\\system32;C:\\windows", SystemRoot: "C:\\windows" };

/** Resolves with the arguments of `emitter`'s next `event`. */
export const once = (emitter, event) => new Promise((res) => emitter.once(event, (...args) => res(args)));

/** All of a readable stream, as a string. */
export async function readAll(stream) {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) text += chunk;
  return text;
}

/** A temporary directory, removed when the test process ends. */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs Windows node.exe (this one) with `args` in `cwd`, by node:child_process itself:
 * { code, stdout, stderr } whatever the exit code.
 */
export function runNode(args, { cwd = root, env: childEnv = process.env, timeout = 60_000 } = {}) {
  return new Promise((res) => {
    execFile(process.execPath, args, { cwd, env: childEnv, timeout, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      res({ code: error ? error.code : 0, signal: error?.signal ?? null, stdout, stderr });
    });
  });
}

/** The MSVC C runtime's quoting, written from its rules, to check command lines. */
export function msvcQuote(arg) {
  if (arg === "") return '""';
  if (!/[ \t"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, "$1$1")}"`;
}
