import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const project = fileURLToPath(new URL("./types/tsconfig.json", import.meta.url));

test("index.d.ts type-checks a program that uses the whole API", () => {
  const result = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
