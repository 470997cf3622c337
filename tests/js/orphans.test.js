// No orphans: when Node dies, or the helper dies, the children it started die too.
// Helper mode only: inline children are Node's own and follow Node's rules.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HelperExitedError } from "spawnhost";
import { modes, hostFor, once } from "./support/modes.js";
import { alive, parentOf, waitUntilGone } from "./support/procfs.js";

const fixture = fileURLToPath(new URL("../fixtures/hold-children.mjs", import.meta.url));
const heldStdinFixture = fileURLToPath(new URL("../fixtures/helper-stdin-held-elsewhere.mjs", import.meta.url));

async function holdChildren(count, stubborn) {
  const node = spawn(process.execPath, [fixture, String(count), String(stubborn)], { stdio: ["ignore", "pipe", "inherit"] });
  let line = "";
  for await (const chunk of node.stdout) {
    line += chunk;
    if (line.includes("\n")) break;
  }
  const pids = JSON.parse(line);
  return { node, pids, helper: parentOf(pids[0]) };
}

if (modes().includes("helper")) {
  describe("no orphans", () => {
    test("SIGKILLing Node ends its 20 children at once and the helper exits", async () => {
      const { node, pids, helper } = await holdChildren(20, 0);
      assert.equal(pids.length, 20);
      assert.ok(pids.every((pid) => parentOf(pid) === helper), "all children belong to one helper");
      node.kill("SIGKILL");
      assert.deepEqual(await waitUntilGone(pids, 3000), [], "children still running");
      assert.deepEqual(await waitUntilGone([helper], 3000), [], "helper still running");
    });

    test("SIGKILLing Node while another process holds the helper's stdin still ends its children", async () => {
      // No EOF on the helper's stdin here: only its PR_SET_PDEATHSIG covers this case.
      const node = spawn(process.execPath, [heldStdinFixture], { stdio: ["ignore", "pipe", "inherit"] });
      let line = "";
      for await (const chunk of node.stdout) {
        line += chunk;
        if (line.includes("\n")) break;
      }
      const { child, holder } = JSON.parse(line);
      const helper = parentOf(child);
      try {
        assert.ok(alive(holder), "the process holding the helper's stdin is running");
        node.kill("SIGKILL");
        assert.deepEqual(await waitUntilGone([child], 8000), [], "the child outlived Node");
        assert.deepEqual(await waitUntilGone([helper], 3000), [], "the helper outlived Node");
        assert.ok(alive(holder), "the stdin holder must still be running, or this tested EOF");
      } finally {
        try { process.kill(holder, "SIGKILL"); } catch { /* gone */ }
        try { process.kill(child, "SIGKILL"); } catch { /* gone */ }
      }
    });

    test("children that ignore SIGTERM get SIGKILL after the 5 s grace period", async () => {
      const { node, pids, helper } = await holdChildren(4, 2);
      const killedAt = Date.now();
      node.kill("SIGKILL");
      assert.deepEqual(await waitUntilGone(pids.slice(2), 3000), [], "plain children still running");
      assert.ok(pids.slice(0, 2).every(alive), "stubborn children should outlive SIGTERM for the grace period");
      assert.deepEqual(await waitUntilGone(pids, 9000), [], "stubborn children still running after the grace period");
      const took = Date.now() - killedAt;
      assert.ok(took >= 4500, `ended after ${took} ms, before the grace period`);
      assert.deepEqual(await waitUntilGone([helper], 3000), [], "helper still running");
    });

    test("shutdown() gives a child that ignores SIGTERM killGraceMs, then SIGKILL", async () => {
      const host = hostFor("helper", { killGraceMs: 800 });
      const child = await host.spawn("sh", ["-c", "trap '' TERM; echo ready; while :; do sleep 0.1; done"], { stdio: ["ignore", "pipe", "ignore"] });
      await once(child.stdout, "data");
      child.stdout.resume();
      child.on("error", () => {});
      const started = Date.now();
      await host.shutdown();
      const took = Date.now() - started;
      assert.ok(took >= 700 && took < 4000, `shutdown took ${took} ms`);
      assert.deepEqual(await waitUntilGone([child.pid], 1000), []);
    });

    test("killGraceMs must be a non-negative integer", () => {
      assert.throws(() => hostFor("helper", { killGraceMs: -1 }), { name: "TypeError", code: "ERR_OUT_OF_RANGE" });
    });

    test("a helper that is SIGKILLed takes its children with it, but not detached ones", async () => {
      const host = hostFor("helper");
      const children = [];
      for (let i = 0; i < 5; i++) children.push(await host.spawn("sleep", ["30"], { stdio: "ignore" }));
      const detached = await host.spawn("sleep", ["30"], { stdio: "ignore", detached: true });
      const helper = parentOf(children[0].pid);
      const errors = children.map((c) => once(c, "error"));
      const closed = children.map((c) => once(c, "close"));
      detached.on("error", () => {});
      process.kill(helper, "SIGKILL");
      for (const [error] of await Promise.all(errors)) {
        assert.ok(error instanceof HelperExitedError, String(error));
        assert.match(error.message, /killed by SIGKILL/);
      }
      await Promise.all(closed);
      assert.deepEqual(await waitUntilGone(children.map((c) => c.pid), 3000), [], "children outlived the helper");
      assert.ok(alive(detached.pid), "a detached child must survive the helper");
      process.kill(detached.pid, "SIGKILL");
      await host.shutdown();
    });

    test("a launch thread the pool added stays while its children live, and retires after them", async () => {
      // Each launch holds its thread 500 ms, so four at once grow the pool past its base
      // of two; an idle extra thread retires after 50 ms. Linux ties a child's
      // parent-death signal to the thread that created it: one retired under its child
      // would have the child killed (helper/launch/launch_pool.hpp).
      Object.assign(process.env, { SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS: "500", SPAWNHOST_HELPER_LAUNCH_IDLE_MS: "50" });
      const host = hostFor("helper", { maxLaunchThreads: 4 });
      try {
        await host.execFile("true");
      } finally {
        delete process.env.SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS;
        delete process.env.SPAWNHOST_HELPER_LAUNCH_IDLE_MS;
      }
      const threads = () => readdirSync(`/proc/${host.stats().helperPid}/task`).length;
      const base = threads();
      // The most threads seen while the launches are made: they are created one after
      // another (each waits 50 ms for the one before it, docs/decisions/launch-pool.md),
      // so an extra thread whose launch ended early may retire before the last is made.
      let grown = base;
      const sampler = setInterval(() => (grown = Math.max(grown, threads())), 5);
      const children = await Promise.all([0, 1, 2, 3].map(() => host.spawn("sleep", ["30"], { stdio: "ignore" })));
      clearInterval(sampler);
      grown = Math.max(grown, threads());
      assert.ok(grown > base, `the pool grew for the launches that waited (${base} threads, then ${grown})`);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // twenty idle times
      assert.deepEqual(children.filter((c) => !alive(c.pid)).map((c) => c.pid), [], "children killed as their launch thread retired");
      // (A thread started for a launch another thread took first has no child: it may go.)
      // The posix_spawn launcher (the macOS helper's) sets no parent-death signal, so
      // nothing ties its children to a thread: its threads may go at once.
      if (process.env.SPAWNHOST_HELPER_POSIX_SPAWN !== "1") assert.ok(threads() > base, "threads whose children live stay");
      const closed = children.map((c) => once(c, "close"));
      for (const c of children) c.kill("SIGKILL");
      await Promise.all(closed);
      for (let i = 0; i < 100 && threads() > base; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(threads(), base, "the extra threads retired once their children had exited");
      await host.shutdown();
    });
  });
}
