// `cwd: ""` as Node takes it: no cwd for spawn, execFile, exec and fork (Node's process
// wrap skips an empty one), but handed to chdir by spawnSync and the other blocking
// calls, which then fail with ENOENT.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import * as nodeChildProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { hostFor, modes, once, readAll } from "./support/modes.js";

const outcome = async (child) => {
  const errors = [];
  child.on("error", (error) => errors.push(error.code));
  const [stdout, [status]] = await Promise.all([readAll(child.stdout), once(child, "close")]);
  return { errors, stdout, status };
};

test("spawn with cwd \"\" runs in Node's cwd, as node:child_process's", async () => {
  assert.deepStrictEqual(await outcome(dropIn.spawn("pwd", { cwd: "" })), await outcome(nodeChildProcess.spawn("pwd", { cwd: "" })));
});

test("execFile with cwd \"\" runs in Node's cwd, as node:child_process's", async () => {
  const run = (cp) => new Promise((resolve) => cp.execFile("pwd", { cwd: "" }, (error, stdout) => resolve({ error: error?.code, stdout })));
  assert.deepStrictEqual(await run(dropIn), await run(nodeChildProcess));
});

test("spawnSync and execFileSync with cwd \"\" fail with ENOENT, as node:child_process's", () => {
  const sync = (cp) => {
    const { error, status } = cp.spawnSync("pwd", { cwd: "" });
    let thrown;
    try {
      cp.execFileSync("pwd", { cwd: "" });
    } catch (e) {
      thrown = { code: e.code, syscall: e.syscall, path: e.path };
    }
    return { error: error && { code: error.code, syscall: error.syscall, path: error.path }, status, thrown };
  };
  const node = sync(nodeChildProcess);
  assert.equal(node.error.code, "ENOENT");
  assert.deepStrictEqual(sync(dropIn), node);
});

for (const mode of modes()) {
  const host = hostFor(mode);
  after(() => host.shutdown());

  test(`${mode}: ProcessHost spawn and execFile with cwd "" run in Node's cwd`, async () => {
    const child = await host.spawn("pwd", [], { cwd: "" });
    assert.deepStrictEqual(await outcome(child), { errors: [], stdout: `${process.cwd()}\n`, status: 0 });
    assert.equal((await host.execFile("pwd", [], { cwd: "" })).stdout, `${process.cwd()}\n`);
  });
}
