// spawnhost/pty at volume: 100 terminals at once, and nothing left after them (Node's
// descriptors, the helper's, its children); and flow control holding back a child that
// writes 100 MB. Run handed over and relayed, as pty.test.js.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import * as pty from "spawnhost/pty";
import { helperPidsOf, zombieChildrenOf } from "./support/procfs.js";
import { handsOver, ptySkip, untilExit } from "./support/pty.js";

const fdCount = (pid) => readdirSync(`/proc/${pid}/fd`).length;
const childrenOf = (pid) => readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(" ").filter(Boolean));
const bytesWritten = (pid) => Number(readFileSync(`/proc/${pid}/io`, "utf8").match(/wchar: (\d+)/)[1]);

describe("spawnhost/pty at volume", { skip: ptySkip }, () => {
  test("100 terminals at once; after them Node and the helper hold what they held before", async () => {
    await untilExit(pty.spawn("true", [])); // the helper is up
    const [helper] = helperPidsOf(process.pid);
    assert.ok(helper > 0, "the pty helper is Node's child");
    await sleep(100);
    const before = { node: fdCount(process.pid), helper: fdCount(helper) };
    const terms = Array.from({ length: 100 }, (_, i) => pty.spawn("sh", ["-c", `echo "hello $0"; sleep 0.5; exit $(( $0 % 7 ))`, String(i)], { cols: 40 + i, rows: 10 }));
    const running = terms.map((term) => untilExit(term));
    await sleep(200);
    assert.ok(fdCount(handsOver ? process.pid : helper) > (handsOver ? before.node : before.helper) + 99, "they are all open at once");
    const results = await Promise.all(running);
    results.forEach(({ out, exit }, i) => {
      assert.equal(out, `hello ${i}\r\n`);
      assert.deepEqual(exit, { exitCode: i % 7, signal: 0 });
    });
    await sleep(200);
    assert.equal(fdCount(process.pid), before.node, "Node's descriptors");
    assert.equal(fdCount(helper), before.helper, "the helper's descriptors");
    assert.deepEqual(childrenOf(helper), [], "the helper's children");
    assert.deepEqual(zombieChildrenOf(helper), []);
  });

  test("paused, a child writing 100 MB blocks; after resume() all of it arrives", async () => {
    const total = 100 * 1000 * 1000;
    const term = pty.spawn("head", ["-c", String(total), "/dev/zero"], { encoding: null });
    term.pause();
    let received = 0;
    term.onData((chunk) => (received += chunk.length));
    const done = new Promise((resolve) => term.onExit(resolve));
    await sleep(500);
    const written = bytesWritten(term.pid);
    await sleep(500);
    assert.equal(bytesWritten(term.pid), written, "the child is blocked in write()");
    assert.ok(written < 8 * 1024 * 1024, `only the terminal's buffers filled (${written} bytes)`);
    assert.equal(received, 0);
    term.resume();
    const exit = await done;
    assert.equal(received, total);
    assert.deepEqual(exit, { exitCode: 0, signal: 0 });
  });
});
