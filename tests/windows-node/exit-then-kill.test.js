// Windows Node: a kill that reaches the helper after a child ended by itself, before its
// exit was reaped, must not turn that end into a kill. Windows refuses to terminate an
// exited process (ERROR_ACCESS_DENIED: libuv's ESRCH); wine 8 says yes, and the helper
// then reported exit(null, "SIGTERM") for a child that had exited with 3 (a CI run of
// pty.test.js: "9 !== 10" exit codes 3). The helper's test delay
// (SPAWNHOST_HELPER_EXIT_DELAY_MS) holds that window open.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { ProcessHost } from "spawnhost";
import { env, fixture, helperPath, once, readAll } from "./support/win.js";

test("a child killed after its own exit, before the helper saw it: the exit is its own (3, no signal)", { timeout: 60_000 }, async () => {
  process.env.SPAWNHOST_HELPER_EXIT_DELAY_MS = "3000";
  const host = new ProcessHost({ mode: "helper", fallback: "error", helperPath });
  try {
    const child = await host.spawn(fixture, ["exit", "3"], { env, stdio: ["ignore", "pipe", "ignore"] });
    const exited = once(child, "exit");
    await readAll(child.stdout); // its end: the child's handles are closed, it has exited
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(child.exitCode, null, "the helper's delay holds the exit report back");
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    assert.deepEqual({ code, signal }, { code: 3, signal: null });
    // The same helper still kills a child that runs.
    const sleeper = await host.spawn(fixture, ["sleep", "60000"], { env, stdio: "ignore" });
    assert.equal(sleeper.kill("SIGTERM"), true);
    const [sleeperCode, sleeperSignal] = await once(sleeper, "exit");
    assert.deepEqual({ code: sleeperCode, signal: sleeperSignal }, { code: null, signal: "SIGTERM" });
  } finally {
    delete process.env.SPAWNHOST_HELPER_EXIT_DELAY_MS;
    await host.shutdown();
  }
});
