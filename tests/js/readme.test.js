// Every JavaScript example in README.md and docs/ runs, and prints what its comments promise.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
// The README and the user docs: every ```js block is a complete program.
const docs = ["README.md", "docs/ipc.md", "docs/drop-in.md", "docs/performance.md"].map((file) => readFileSync(`${root}/${file}`, "utf8")).join("\n");
const examples = [...docs.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test("the README and docs have JavaScript examples", () => {
  assert.ok(examples.length >= 4, `found ${examples.length}`);
});

examples.forEach((code, index) => {
  test(`docs example ${index + 1} runs and prints what its comments say`, () => {
    // Run from the repository root, where "spawnhost" resolves to this workspace.
    const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      cwd: root, encoding: "utf8", timeout: 30_000,
    });
    assert.equal(result.status, 0, result.stderr);
    // A trailing "// a b c" comment on a console.log line is the output it promises.
    const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    const lines = result.stdout.trim().split("\n");
    for (const expected of promised) assert.ok(lines.includes(expected), `"${expected}" not in:\n${result.stdout}`);
  });
});
