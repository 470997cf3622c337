// Every ```js ssh example in README.md and docs/remote.md runs against a throwaway
// sshd (SSH: a wrapper of ssh with the test's config, HOST: its alias) and prints what
// its comments promise. readme.test.js runs the plain ```js blocks, which need no sshd.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { modes } from "./support/modes.js";
import { sshdUnavailable, startSshd } from "./support/sshd.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const docs = ["README.md", "docs/remote.md"].map((file) => readFileSync(`${root}/${file}`, "utf8")).join("\n");
const examples = [...docs.matchAll(/```js ssh\n([\s\S]*?)```/g)].map((m) => m[1]);

const unavailable = !modes().includes("helper") ? "SPAWNHOST_TEST_MODES has no helper mode" : sshdUnavailable();
if (unavailable && process.env.CI === "true" && modes().includes("helper")) {
  throw new Error(`CI: the remote-host docs examples need an sshd: ${unavailable}`);
}
if (unavailable) console.log(`# skipping the remote-host docs examples: ${unavailable}`);

test("README.md and docs/remote.md have remote examples", () => {
  assert.ok(examples.length >= 2, `found ${examples.length}`);
});

describe("remote docs examples", { skip: unavailable ?? false }, () => {
  let sshd;
  before(async () => { sshd = await startSshd(); });
  after(async () => { await sshd?.remove(); });

  examples.forEach((code, index) => {
    test(`remote example ${index + 1} runs and prints what its comments say`, async () => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
        cwd: root, env: { ...process.env, SSH: sshd.sshPath, HOST: sshd.alias }, stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "", stderr = "";
      child.stdout.on("data", (chunk) => { stdout += chunk; });
      child.stderr.on("data", (chunk) => { stderr += chunk; });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const status = await new Promise((resolve) => child.on("close", resolve));
      clearTimeout(timer);
      assert.equal(status, 0, stderr);
      const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      assert.ok(promised.length >= 2, "the example promises some output");
      const lines = stdout.trim().split("\n");
      for (const expected of promised) assert.ok(lines.includes(expected), `"${expected}" not in:\n${stdout}`);
    });
  });
});
