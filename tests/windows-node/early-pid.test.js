// Windows Node: under `spawnhost/register`, spawn() returns a ChildProcess whose pid is
// already a number, as Node's own on Windows (docs/sync.md, "The lazy pid"; the helper is
// asked on its sync pipe).
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createRequire } from "node:module";

const builtin = createRequire(import.meta.url)("node:child_process");
await import("spawnhost/register");
const { stats } = await import("spawnhost/child_process");

test("pid is a number right after spawn(), the child's own", async () => {
  const child = builtin.spawn(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
  const pid = child.pid;
  assert.equal(typeof pid, "number");
  assert.ok(pid > 0);
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (text) => { out += text; });
  const [code] = await once(child, "close");
  assert.equal(code, 0);
  assert.equal(out, String(pid));
  assert.equal(stats().fallback, 0, JSON.stringify(stats().fallbackReasons));
});

test("pid right after spawn() for the first launch, and for several in one tick", async () => {
  const children = [1, 2, 3].map(() => builtin.spawn("cmd.exe", ["/c", "exit 0"]));
  const pids = children.map((child) => child.pid);
  for (const pid of pids) assert.equal(typeof pid, "number");
  assert.equal(new Set(pids).size, 3);
  await Promise.all(children.map((child) => once(child, "close")));
});

test("pid read after each spawn() in one turn of the loop, with stdin written between", async () => {
  // Each spawn's frame follows a write whose completion the loop has not seen yet.
  const children = [];
  const pids = [];
  for (let i = 0; i < 3; i++) {
    const child = builtin.spawn(process.execPath, ["-e", "process.stdin.pipe(process.stdout)"]);
    pids.push(typeof child.pid);
    child.stdin.end(`child ${i}`);
    children.push(child);
  }
  assert.deepEqual(pids, ["number", "number", "number"]);
  const outputs = await Promise.all(children.map(async (child) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (text) => { out += text; });
    await once(child, "close");
    return out;
  }));
  assert.deepEqual(outputs, ["child 0", "child 1", "child 2"]);
});

test("a program that cannot start: pid undefined, then its error event, as Node's", async () => {
  const child = builtin.spawn("spawnhost-no-such-program");
  assert.equal(child.pid, undefined);
  const [error] = await once(child, "error");
  assert.equal(error.code, "ENOENT");
});
