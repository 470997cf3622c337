// fork() and the "ipc" stdio entry through the Windows helper, run by Windows Node
// (under wine here): the child finds its channel as child_process gives it (a libuv IPC
// pipe as C runtime descriptor NODE_CHANNEL_FD), the helper relays the frames' data,
// and the parent's side is the relayed channel of POSIX. Each behaviour is compared
// with node:child_process.fork in the same run where that is what is promised.
// Self-contained: needs spawnhost (a copy) and @msgpack/msgpack in a node_modules
// above it, and SPAWNHOST_HELPER_PATH naming spawnhost-helper.exe.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as nodeChildProcess from "node:child_process";
import { ProcessHost } from "spawnhost";
import { fork as dropInFork, spawn as dropInSpawn, stats } from "spawnhost/child_process";

const scratch = mkdtempSync(join(tmpdir(), "spawnhost-win-fork-"));
const script = (name, code) => {
  const file = join(scratch, name);
  writeFileSync(file, code);
  return file;
};

// Echoes every message back, says which serialization it was given, and leaves on "bye"
// (disconnecting itself) or when the parent disconnects it (saying so on stdout).
const echo = script("echo.cjs", `
  process.on("disconnect", () => process.stdout.write("child saw disconnect\\n"));
  process.on("message", (m) => {
    if (m === "bye") return process.disconnect();
    process.send({ echo: m });
  });
  process.send("ready");
`);

const silent = { silent: true };

// Runs one exchange and returns what the parent saw, in order.
async function exchange(child, messages) {
  const seen = [];
  let stdout = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.on("message", (m) => seen.push(["message", m]));
  child.on("disconnect", () => seen.push(["disconnect"]));
  const [first] = await once(child, "message");
  assert.equal(first, "ready");
  for (const m of messages) {
    child.send(m);
    await once(child, "message");
  }
  child.send("bye");
  const [code, signal] = await once(child, "exit");
  seen.push(["exit", code, signal]);
  return { seen, stdout, connected: child.connected };
}

const host = new ProcessHost();

for (const serialization of ["json", "advanced"]) {
  test(`ProcessHost.fork (${serialization}): messages both ways and the child's disconnect, as node:child_process.fork`, async () => {
    const messages = serialization === "json"
      ? [{ a: 1, s: "é\n\u2028" }, [1, "two", null], "x".repeat(70000)]
      : [{ big: 2n ** 70n, when: new Date(0), map: new Map([[1, "one"]]) }, new Uint8Array([1, 2, 3]), "x".repeat(70000)];
    const ours = await exchange(await host.fork(echo, [], { ...silent, serialization }), messages);
    const theirs = await exchange(nodeChildProcess.fork(echo, [], { ...silent, serialization }), messages);
    assert.deepEqual(ours, theirs);
    const replies = ours.seen.filter(([kind, m]) => kind === "message" && m !== "ready").map(([, m]) => m);
    assert.deepEqual(replies.map((r) => r.echo), messages);
    assert.deepEqual(ours.seen.slice(-2), [["disconnect"], ["exit", 0, null]]);
  });
}

test("the parent's disconnect() reaches the child, which then ends on its own, as with node:child_process", async () => {
  for (const make of [() => host.fork(echo, [], silent), () => nodeChildProcess.fork(echo, [], silent)]) {
    const child = await make();
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    await once(child, "message");
    const events = [];
    child.on("disconnect", () => events.push("disconnect"));
    child.on("exit", (code) => events.push(`exit ${code}`));
    const closed = once(child.stdout, "end");
    child.disconnect();
    assert.equal(child.connected, false);
    await closed;
    if (!events.includes("exit 0")) await once(child, "exit");
    assert.deepEqual(events, ["disconnect", "exit 0"]);
    assert.equal(stdout, "child saw disconnect\n");
  }
});

test("send()'s callback comes once the helper wrote the message; its return value says when 128 KiB wait", async () => {
  // A child whose event loop stops (a blocking read of stdin) once it said "ready":
  // nothing reads its channel, whose pipe fills.
  const holder = script("holder.cjs", `
    process.on("message", (m) => { if (m === "last") process.send("got all"); });
    process.send("ready", () => require("node:fs").readSync(0, Buffer.alloc(16)));
  `);
  const child = await host.fork(holder, [], silent);
  await once(child, "message");
  const order = [];
  const big = "y".repeat(300 * 1024);
  let smallWritten;
  const small = new Promise((resolve) => (smallWritten = resolve));
  const results = [child.send("small", (e) => { order.push(["small", e]); smallWritten(); })];
  results.push(child.send(big, (e) => order.push(["big", e])));
  results.push(child.send("last", (e) => order.push(["last", e])));
  assert.deepEqual(results, [true, false, false]);
  await small;
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(order, [["small", null]], "the big message cannot all be written while the child does not read");
  child.stdin.write("go\n");
  const [reply] = await once(child, "message");
  assert.equal(reply, "got all");
  assert.deepEqual(order, [["small", null], ["big", null], ["last", null]]);
  assert.equal(child.send("again"), true);
  child.disconnect();
  await once(child, "exit");
});

test("send(message, handle) throws for the relayed channel; a handle the child sends is refused and its later messages arrive", async () => {
  const child = await host.fork(script("sender.cjs", `
    // The server stays open until the channel ends: Node's child may send it again
    // when the parent refuses it.
    const server = require("node:net").createServer().listen(0, "127.0.0.1", () => {
      process.send("with a server", server, (e) => process.send(["after", e?.code ?? null]));
    });
    process.on("disconnect", () => server.close());
  `), [], silent);
  const server = createServer();
  assert.throws(() => child.send("x", server), { name: "TypeError", code: "ERR_INVALID_HANDLE_TYPE" });
  const [message] = await once(child, "message");
  assert.deepEqual(message, ["after", null]);
  child.disconnect();
  await once(child, "exit");
});

test("spawn with an \"ipc\" stdio entry gives node.exe its channel", async () => {
  const child = await host.spawn(process.execPath, [echo], { stdio: ["pipe", "pipe", "pipe", "ipc"], serialization: "advanced" });
  assert.equal(await once(child, "message").then(([m]) => m), "ready");
  child.send({ n: 10n });
  const [reply] = await once(child, "message");
  assert.deepEqual(reply, { echo: { n: 10n } });
  child.send("bye");
  await once(child, "exit");
});

test("the drop-in's fork and \"ipc\" spawn go to node:child_process, counted with their reason: handles cannot cross the helper's channel on Windows", async () => {
  const reason = "a fork channel on Windows: the helper relays it, and it cannot carry handles";
  const before = stats();
  const child = dropInFork(echo, [], silent);
  const ours = await exchange(child, [{ n: 1 }]);
  const after = stats();
  assert.notEqual(after.mode, "inline", "a helper is there to take the other calls");
  assert.equal(after.helper, before.helper);
  assert.equal(after.fallback - before.fallback, 1);
  assert.equal((after.fallbackReasons[reason] ?? 0) - (before.fallbackReasons[reason] ?? 0), 1, JSON.stringify(after.fallbackReasons));
  const theirs = await exchange(nodeChildProcess.fork(echo, [], silent), [{ n: 1 }]);
  assert.deepEqual(ours, theirs);
  const spawned = await exchange(dropInSpawn(process.execPath, [echo], { stdio: ["pipe", "pipe", "pipe", "ipc"] }), [{ n: 1 }]);
  assert.deepEqual(spawned, theirs);
  assert.equal((stats().fallbackReasons[reason] ?? 0) - (before.fallbackReasons[reason] ?? 0), 2);
  assert.equal(stats().helper, before.helper);
});

test.after(() => host.shutdown());
