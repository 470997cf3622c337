// The benchmarks' null launcher (SPAWNHOST_HELPER_NULL_LAUNCHER=1): launches are
// answered without a process. It must be off unless asked for, and do nothing when on.
// A test build's switch (CMake SPAWNHOST_TEST_HOOKS, on in scripts/build-helper); that a
// release helper ignores it is checked by scripts/install-smoke and scripts/build-static.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { modes, hostFor } from "./support/modes.js";
import { scratchDir } from "./support/scratch.js";

if (modes().includes("helper")) {
  const marker = () => `${scratchDir("spawnhost-null-")}/ran`;

  test("without SPAWNHOST_HELPER_NULL_LAUNCHER, launches create processes", async () => {
    const path = marker();
    const host = hostFor("helper");
    await host.execFile("touch", [path]);
    await host.shutdown();
    assert.equal(existsSync(path), true);
  });

  test("with SPAWNHOST_HELPER_NULL_LAUNCHER=1, a launch is answered as an exit 0 and creates nothing", async () => {
    const path = marker();
    const host = hostFor("helper");
    process.env.SPAWNHOST_HELPER_NULL_LAUNCHER = "1"; // read by the helper, which starts with the first call
    try {
      const first = host.execFile("touch", [path]);
      delete process.env.SPAWNHOST_HELPER_NULL_LAUNCHER;
      assert.deepEqual(await first, { stdout: "", stderr: "" });
      const child = await host.spawn("touch", [path]);
      assert.equal(child.pid, 0);
      assert.deepEqual(await new Promise((resolve) => child.on("close", (...args) => resolve(args))), [0, null]);
    } finally {
      delete process.env.SPAWNHOST_HELPER_NULL_LAUNCHER;
      await host.shutdown();
    }
    assert.equal(existsSync(path), false);
  });
}
