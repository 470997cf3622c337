import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("the committed generated protocol files match what the generator writes", () => {
  const result = spawnSync(process.execPath, ["scripts/gen-protocol.mjs", "--check"], { cwd: root, encoding: "utf8" });
  assert.equal(result.status, 0, `gen-protocol --check failed:\n${result.stdout}${result.stderr}`);
});
