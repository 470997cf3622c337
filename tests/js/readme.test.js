// Every JavaScript example in README.md and docs/ runs, and prints what its comments
// promise; the README's `npm run build` lines do what it says of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { scratchDir } from "./support/scratch.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
// The README and the user docs: every ```js block is a complete program.
const docs = ["README.md", "docs/ipc.md", "docs/drop-in.md", "docs/performance.md", "docs/pty.md"].map((file) => readFileSync(`${root}/${file}`, "utf8")).join("\n");
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

// The README's `npm run build` lines, run for real in a tiny project whose build script
// (tests/fixtures/npm-build.mjs) launches one child and reports: npm's launch of the
// script goes through the helper (the shell npm runs it with is the helper's child),
// and the launches inside the build do only when the flag is passed on.
const npmLines = [...readFileSync(`${root}/README.md`, "utf8").matchAll(/^(.*NODE_OPTIONS="--import spawnhost\/register" npm run build)$/gm)].map((m) => m[1]);

test("the README shows npm run build with and without SPAWNHOST_REGISTER_CHILDREN", () => {
  assert.deepStrictEqual(npmLines.map((line) => line.startsWith("SPAWNHOST_REGISTER_CHILDREN=1 ")), [false, true]);
});

for (const line of npmLines) {
  const passedOn = line.startsWith("SPAWNHOST_REGISTER_CHILDREN=1 ");
  test(`README: ${line} launches the build script through the helper, and ${passedOn ? "the build's own launches too" : "not the build's own launches"}`, () => {
    const project = scratchDir("spawnhost-npm-");
    try {
      mkdirSync(join(project, "node_modules"));
      symlinkSync(join(root, "js"), join(project, "node_modules", "spawnhost"));
      copyFileSync(fileURLToPath(new URL("../fixtures/npm-build.mjs", import.meta.url)), join(project, "build.mjs"));
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "t", private: true, type: "module", scripts: { build: "node build.mjs" } }));
      const { NODE_OPTIONS, SPAWNHOST_REGISTER_CHILDREN, ...env } = process.env;
      const result = spawnSync("/bin/sh", ["-c", `${line} --silent`], { cwd: project, env, encoding: "utf8", timeout: 60_000 });
      assert.equal(result.status, 0, result.stderr);
      const { launchers, stats } = JSON.parse(result.stdout.trim().split("\n").at(-1));
      assert.equal(launchers[0], "sh", "npm runs the script with a shell");
      assert.match(launchers[1], /^spawnhost-helpe/, "the shell's parent is the helper");
      assert.deepStrictEqual({ helper: stats.helper, fallback: stats.fallback }, passedOn ? { helper: 1, fallback: 0 } : { helper: 0, fallback: 0 });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
}
