// No terminal child outlives Node or the helper (docs/pty.md): a terminal's child is in
// a session of its own, but still gets the helper's parent-death signal, and the
// helper ends it when Node goes away, as its other children.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { alive, parentOf, waitUntilGone } from "./support/procfs.js";
import { ptySkip } from "./support/pty.js";

const fixture = fileURLToPath(new URL("../fixtures/pty-hold.mjs", import.meta.url));

async function holder(count) {
  const child = spawn(process.execPath, [fixture, String(count)], { stdio: ["ignore", "pipe", "inherit"] });
  let line = "";
  child.stdout.setEncoding("utf8");
  for await (const chunk of child.stdout) {
    line += chunk;
    if (line.includes("\n")) break;
  }
  const pids = JSON.parse(line);
  return { child, pids, helper: parentOf(pids[0]) };
}

describe("terminals end with Node and with the helper", { skip: ptySkip }, () => {
  test("SIGKILLing the helper ends its terminals' children (parent-death signal)", async () => {
    const { child, pids, helper } = await holder(3);
    try {
      assert.ok(pids.every(alive));
      assert.ok(pids.every((pid) => parentOf(pid) === helper), "the helper's children");
      process.kill(helper, "SIGKILL");
      assert.deepEqual(await waitUntilGone(pids, 3000), [], "terminal children still running");
    } finally {
      child.kill("SIGKILL");
      await once(child, "close");
    }
  });

  test("SIGKILLing Node ends its terminals' children and the helper", async () => {
    const { child, pids, helper } = await holder(3);
    child.kill("SIGKILL");
    await once(child, "close");
    assert.deepEqual(await waitUntilGone([...pids, helper], 8000), [], "still running");
  });
});
