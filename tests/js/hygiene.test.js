// What a child inherits, and what the helper leaves behind: nothing but its stdio,
// default signal state, Node's process group, and no zombies.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { modes, hostFor, once, readAll } from "./support/modes.js";

// Fields of /proc/<pid>/stat after the command name: [state, ppid, pgrp, ...].
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
const childrenOf = (ppid) => readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((pid) => {
  try {
    const [state, parent] = stat(pid);
    return Number(parent) === ppid ? [{ pid: Number(pid), state }] : [];
  } catch {
    return []; // gone meanwhile
  }
});

for (const mode of modes()) {
  describe(`child hygiene (${mode})`, () => {
    test("a child starts with default signal dispositions and an empty signal mask", async () => {
      const host = hostFor(mode);
      const { stdout } = await host.execFile("grep", ["-E", "^Sig(Ign|Blk)", "/proc/self/status"]);
      assert.equal(stdout, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
      await host.shutdown();
    });

    test("a child is in Node's process group, as with child_process", async () => {
      const host = hostFor(mode);
      const child = await host.spawn("sleep", ["5"], { stdio: "ignore" });
      assert.equal(Number(stat(child.pid)[2]), Number(stat(process.pid)[2]));
      child.kill();
      await once(child, "close");
      await host.shutdown();
    });
  });
}

if (modes().includes("helper")) {
  describe("helper hygiene", () => {
    test("the helper has a process group of its own, so a child signalling its group cannot reach it", async () => {
      const host = hostFor("helper");
      const child = await host.spawn("sleep", ["5"], { stdio: "ignore" });
      const helper = Number(stat(child.pid)[1]);
      assert.equal(Number(stat(helper)[2]), helper, "the helper leads its own group");
      assert.notEqual(Number(stat(child.pid)[2]), helper);
      child.kill();
      await once(child, "close");
      await host.shutdown();
    });

    test("children inherit only their stdio while hundreds of pipes are open and launches run on every thread", { timeout: 60_000 }, async () => {
      const host = hostFor("helper", { maxLaunchThreads: 4 });
      const sleepers = await Promise.all(Array.from({ length: 100 }, () => host.spawn("sleep", ["30"])));
      const listings = await Promise.all(Array.from({ length: 16 }, () => host.execFile("ls", ["/proc/self/fd"])));
      for (const { stdout } of listings) assert.equal(stdout, "0\n1\n2\n3\n"); // 3: the listing itself
      const closed = sleepers.map((c) => once(c, "close"));
      for (const c of sleepers) c.kill();
      await Promise.all(closed);
      await host.shutdown();
    });

    test("children spawned with piped stdio inherit only it while other launches' ends are being handed to Node", { timeout: 60_000 }, async () => {
      const host = hostFor("helper", { maxLaunchThreads: 4 });
      const listings = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
        const child = await host.spawn(i % 3 === 0 ? "ls" : "cat", i % 3 === 0 ? ["/proc/self/fd"] : [], {});
        child.stdin.end();
        return readAll(child.stdout);
      }));
      for (const [i, listing] of listings.entries()) assert.equal(listing, i % 3 === 0 ? "0\n1\n2\n3\n" : "");
      await host.shutdown();
    });

    test("no zombie remains once children have closed", { timeout: 60_000 }, async () => {
      const host = hostFor("helper");
      const sleeper = await host.spawn("sleep", ["30"], { stdio: "ignore" });
      const helper = Number(stat(sleeper.pid)[1]);
      // Listen for close as each child resolves: a short child may close before the rest start.
      await Promise.all(Array.from({ length: 50 }, (_, i) => host.spawn("sh", ["-c", `exit ${i % 3}`]).then((c) => once(c, "close"))));
      sleeper.kill();
      await once(sleeper, "close");
      assert.deepEqual(childrenOf(helper), [], "the helper still has children (zombies or running)");
      await host.shutdown();
    });
  });
}
