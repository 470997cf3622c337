// The children's stdio in Node's hands: a local helper on Linux hands the
// parent end of each piped socketpair to Node, which reads and writes it as the
// net.Socket child_process gives. SPAWNHOST_STREAMS=relay runs the same suites against
// the relay; the promises only the hand-over can keep are skipped there.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { setTimeout as sleep } from "node:timers/promises";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor, once, readAll } from "./support/modes.js";
import { openSockets, parentOf, waitUntilGone } from "./support/procfs.js";
import { scratchDir } from "./support/scratch.js";

const handsOver = modes().includes("helper") && process.platform !== "win32" && process.env.SPAWNHOST_STREAMS !== "relay";
const skip = !handsOver && "the helper relays the streams here (SPAWNHOST_STREAMS=relay, or no helper mode)";

const faces = () => {
  const host = hostFor("helper");
  return [
    { name: "ProcessHost", host, spawn: (file, args, options) => host.spawn(file, args, options) },
    { name: "spawnhost/child_process", spawn: async (file, args, options) => dropIn.spawn(file, args, options) },
  ];
};

describe("stdio handed over to Node", { skip }, () => {
  const all = skip ? [] : faces();
  after(() => Promise.all(all.map((face) => face.host?.shutdown())));

  for (const face of all) {
    test(`${face.name}: stdin, stdout and stderr are net.Sockets, as child_process's`, async () => {
      const node = childProcess.spawn("cat");
      const child = await face.spawn("cat", [], {});
      for (const c of [node, child]) {
        assert.ok(c.stdin instanceof net.Socket && c.stdout instanceof net.Socket && c.stderr instanceof net.Socket);
        c.stdin.end();
        c.stdout.resume();
      }
      await Promise.all([once(node, "close"), once(child, "close")]);
    });

    test(`${face.name}: stdin.end() gives the child end of file after what was written`, async () => {
      const child = await face.spawn("wc", ["-c"], {});
      const counted = readAll(child.stdout);
      child.stdin.write(Buffer.alloc(300_000, "x"));
      child.stdin.end("yz");
      assert.equal((await counted).trim(), "300002");
      assert.deepEqual(await once(child, "close"), [0, null]);
    });

    test(`${face.name}: close comes after exit and after the outputs a grandchild held`, async () => {
      const events = [];
      const child = await face.spawn("sh", ["-c", "echo first; (sleep 0.3; echo late) & exit 3"], {});
      let out = "";
      child.stdout.on("data", (chunk) => { out += chunk; });
      child.stdout.on("close", () => events.push("stdout close"));
      child.on("exit", (code) => events.push(`exit ${code}`));
      await once(child, "close");
      events.push("close");
      assert.equal(out, "first\nlate\n");
      assert.deepEqual(events, ["exit 3", "stdout close", "close"]);
    });

    test(`${face.name}: the child holds only its stdio, and no channel of the helper's in its environment`, async () => {
      const child = await face.spawn("sh", ["-c", "ls /proc/self/fd; env | grep -c ^NODE_CHANNEL || true"], {});
      assert.equal(await readAll(child.stdout), "0\n1\n2\n3\n0\n"); // 3: ls's listing
    });
  }

  // The helper keeps a copy of stdout's and stderr's ends only until it sees the first
  // readable (helper/posix/first_output.hpp: which came first), stdin's not at all.
  // Readable here by their end, which Node cannot take from the helper as it can bytes.
  test("the helper closes its copy of each descriptor once it has gone to Node and an output was readable", async () => {
    const host = hostFor("helper");
    const sockets = openSockets;
    const first = await host.spawn("true", [], { stdio: "ignore" });
    await once(first, "close");
    const helper = host.stats().helperPid;
    const before = sockets(helper);
    const children = await Promise.all(Array.from({ length: 5 }, () => host.spawn("sh", ["-c", "exec >&- 2>&-; read line"], {})));
    try {
      // Their end may be read already: finished() settles for one that came and went.
      await Promise.all(children.map((child) => finished(child.stdout.resume(), { writable: false })));
      // The helper closes its copies once they are sent and an output was readable,
      // maybe after Node read it.
      for (let tries = 0; sockets(helper) !== before && tries < 250; tries++) await sleep(20);
      assert.equal(sockets(helper), before, "the helper still holds parent ends");
    } finally {
      // Ended either way, so a failure is reported at once rather than as a hang.
      for (const child of children) {
        child.stdin.end();
        child.stdout.resume();
      }
      await Promise.all(children.map((child) => once(child, "close")));
      await host.shutdown();
    }
  });

  test("the helper holds no end of a handed-over output it watches, before or after the child's exit (a grandchild holds them)", async () => {
    const host = hostFor("helper");
    const first = await host.spawn("true", [], { stdio: "ignore" });
    await once(first, "close");
    const helper = host.stats().helperPid;
    const before = openSockets(helper);
    // The grandchild holds stdout and stderr, silent, for 3 s after the child's exit.
    const child = await host.spawn("sh", ["-c", "read line; sleep 3 & exit 0"], {});
    try {
      await sleep(100);
      assert.equal(openSockets(helper), before, "the helper holds sockets of a launch whose outputs are Node's");
      child.stdin.end("go\n");
      await once(child, "exit");
      assert.equal(openSockets(helper), before, "the helper holds sockets after the child's exit");
    } finally {
      child.stdout.resume();
      child.stderr.resume();
      await once(child, "close");
      await host.shutdown();
    }
  });

  test("a descriptor Node has no room for fails the spawn with EMFILE, as child_process's; the child is killed", async () => {
    const fixture = new URL("../fixtures/node-out-of-descriptors.mjs", import.meta.url).pathname;
    const run = childProcess.spawnSync("sh", ["-c", 'ulimit -n 200 && exec "$0" "$1"', process.execPath, fixture], { encoding: "utf8", timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const outcome = JSON.parse(run.stdout);
    const failed = { error: { message: "spawn sleep EMFILE", code: "EMFILE", errno: -24, syscall: "spawn sleep", path: "sleep" }, close: { code: -24, signal: null } };
    assert.deepEqual(outcome.childProcess, failed, "node:child_process itself, beside it");
    assert.deepEqual(outcome.host, failed);
    assert.deepEqual(outcome.dropIn, failed);
    assert.equal(outcome.left, 0, "a child whose stdio never reached Node is still running");
    assert.equal(outcome.again, "again\n", "with room again, the next spawn works");
  });

  test("a helper killed mid-stream loses no byte the child already wrote; the child ends and the host reports it", async () => {
    const host = hostFor("helper");
    const dir = scratchDir("spawnhost-handover-");
    const written = join(dir, "written");
    const child = await host.spawn("sh", ["-c", 'head -c 100000 /dev/zero | tr "\\0" x; echo END; : > "$1"; exec sleep 60', "sh", written]);
    child.stdout.pause();
    const errors = [];
    child.on("error", (error) => errors.push(error));
    while (!existsSync(written)) await sleep(20);
    const { helperPid } = host.stats();
    process.kill(helperPid, "SIGKILL");
    const out = await readAll(child.stdout);
    assert.equal(out.length, 100_004);
    assert.ok(out.endsWith("xEND\n"));
    await once(child, "close");
    assert.equal(errors.length, 1, "the helper's end is reported as the child's error");
    // A dying process closes its descriptors before the kernel marks it exited, so Node
    // can see its stdout end, then `close`, while /proc still shows it running (seen once,
    // under ASan on a loaded machine): a moment, against its sleep's 60 s.
    assert.deepEqual(await waitUntilGone([child.pid], 5000), [], "the child outlived the helper");
    await host.shutdown().catch(() => {});
  });
});
