// Real libraries (execa, tinyexec, cross-spawn, simple-git, zx, installed from the registry
// as devDependencies) run the same script plain and under `--import spawnhost/register`:
// their results must be equal, and their launches must have gone through the helper.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../fixtures/drop-in-libraries.mjs", import.meta.url));

async function run(nodeFlags) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...nodeFlags, script], { timeout: 60_000 });
  const lines = stdout.trim().split("\n");
  try {
    return JSON.parse(lines.at(-1));
  } catch {
    throw new Error(`the library script printed no result:\n${stdout}\n${stderr}`);
  }
}

test("execa, tinyexec, cross-spawn, simple-git and zx give the same results under spawnhost/register, through the helper", async (t) => {
  const [plain, registered] = await Promise.all([run([]), run(["--import", "spawnhost/register"])]);
  assert.deepStrictEqual(registered.results, plain.results);
  assert.equal(plain.stats.helper, 0, "without the flag nothing goes through the helper");
  assert.equal(registered.stats.mode, "helper");
  // 20 launches through spawn/execFile/fork, 2 sync ones (execaSync, cross-spawn's sync):
  // every one through the helper, none falling back to node:child_process.
  assert.ok(registered.stats.helper >= 22, `only ${registered.stats.helper} launches went through the helper`);
  assert.deepStrictEqual([registered.stats.fallback, registered.stats.fallbackReasons], [0, {}]);
  t.diagnostic(`library run stats: ${JSON.stringify(registered.stats)}`);
});
