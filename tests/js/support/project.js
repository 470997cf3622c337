// Runs code in a fresh Node process inside a project directory, the way a user's app
// would import spawnhost there: each run has its own once-per-process warnings.
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Runs `body` (an async function's source, given ProcessHost) in a fresh Node process in
 * `root`; returns what it returned, as JSON, and the warnings it emitted. The helper is
 * found as in an installed copy: SPAWNHOST_HELPER_PATH only when `env` names it.
 * @returns {Promise<{ result: unknown, warnings: { code: string, message: string }[] }>}
 */
export async function inProject(root, body, env = {}) {
  writeFileSync(join(root, "probe.mjs"), `
    import { ProcessHost } from "spawnhost";
    const warnings = [];
    process.on("warning", (w) => warnings.push({ code: w.code, message: w.message }));
    const result = await (${body})(ProcessHost);
    await new Promise((resolve) => setImmediate(resolve));
    console.log(JSON.stringify({ result, warnings }));
  `);
  const cleanEnv = { ...process.env, ...env };
  if (!("SPAWNHOST_HELPER_PATH" in env)) delete cleanEnv.SPAWNHOST_HELPER_PATH;
  const { stdout } = await run(process.execPath, ["--no-warnings", "probe.mjs"], { cwd: root, env: cleanEnv, timeout: 60_000 });
  return JSON.parse(stdout);
}
