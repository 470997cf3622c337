// HostPool over three real sshd "hosts" (three servers on 127.0.0.1, different ports):
// least-busy placement, pinning, and one host killed while 200 launches are in flight:
// every launch completes once or rejects with a clear error, and none runs twice.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostPool, ProcessHost, HelperExitedError } from "spawnhost";
import { modes, once, rejection } from "./support/modes.js";
import { sshdUnavailable, startSshd } from "./support/sshd.js";

const unavailable = !modes().includes("helper") ? "SPAWNHOST_TEST_MODES has no helper mode" : sshdUnavailable();
if (unavailable && process.env.CI === "true" && modes().includes("helper")) {
  throw new Error(`CI: the HostPool tests need an sshd: ${unavailable}`);
}
if (unavailable) console.log(`# skipping the HostPool tests: ${unavailable}`);

// Which server ran a command: each sets its own XDG_CACHE_HOME for its sessions.
const WHERE = ["sh", ["-c", "printf %s \"$XDG_CACHE_HOME\""]];

describe("HostPool", { skip: unavailable ?? false }, () => {
  let servers = [];
  before(async () => { servers = await Promise.all([startSshd(), startSshd(), startSshd()]); });
  after(async () => { await Promise.all(servers.map((server) => server.remove())); });

  const poolOver = (options) => new HostPool(servers.map((server) => new ProcessHost({ transport: server.transport(), killGraceMs: 1000 })), options);

  test("least-busy: long launches spread evenly; `host` pins one", async () => {
    const pool = poolOver();
    const children = [];
    for (let i = 0; i < 6; i++) children.push(await pool.spawn("sleep", ["30"]));
    assert.deepEqual(pool.stats().map((s) => s.inFlight), [2, 2, 2]);
    const pinned = await pool.execFile(...WHERE, { host: 2 });
    assert.equal(pinned.stdout, servers[2].cache);
    const byInstance = await pool.execFile(...WHERE, { host: pool.stats()[1].host });
    assert.equal(byInstance.stdout, servers[1].cache);
    assert.throws(() => pool.execFile("true", [], { host: 7 }), /"host" option/);
    for (const child of children) child.kill();
    await Promise.all(children.map((child) => once(child, "close")));
    assert.deepEqual(pool.stats().map((s) => s.inFlight), [0, 0, 0]);
    await pool.shutdown();
  });

  test("a host whose connection dropped is probed back into rotation", async () => {
    const pool = poolOver();
    const [first] = pool.stats();
    const { transportPid } = await first.host.info();
    const child = await pool.spawn("sleep", ["30"], { host: 0 });
    process.kill(transportPid, "SIGKILL");
    await once(child, "close");
    assert.ok(pool.stats()[0].down instanceof HelperExitedError, "out after its helper went away");
    // The probe (0.5 s, then doubling) reconnects through host.info().
    const deadline = Date.now() + 30_000;
    while (pool.stats()[0].down && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(pool.stats()[0].down, null, "back once a probe connected");
    assert.equal((await pool.execFile(...WHERE, { host: 0 })).stdout, servers[0].cache);
    assert.notEqual((await first.host.info()).transportPid, transportPid);
    await pool.shutdown();
  });

  test("one host killed while 200 launches are in flight: each completes once or rejects clearly, none twice", async (t) => {
    const log = join(servers[0].dir, "ran.log");
    writeFileSync(log, "");
    const pool = poolOver({ maxPerHost: 24 });
    // Warm the connections, so the kill lands among running launches, not handshakes.
    await Promise.all([0, 1, 2].map((host) => pool.execFile("true", [], { host })));
    const victim = servers[1];
    const calls = Array.from({ length: 200 }, (_, i) => pool.execFile("sh", ["-c", `echo ${i} >> '${log}'; sleep 0.3; echo ${i}`])
      .then((result) => ({ i, stdout: result.stdout }), (error) => ({ i, error })));
    // Kill once launches are running everywhere: the listener and all its sessions.
    const deadline = Date.now() + 60_000;
    while (readFileSync(log, "utf8").split("\n").length < 40) {
      assert.ok(Date.now() < deadline, "40 launches started within a minute");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await victim.stop();
    const results = await Promise.all(calls);

    const ran = readFileSync(log, "utf8").split("\n").filter(Boolean).map(Number);
    const times = new Map();
    for (const i of ran) times.set(i, (times.get(i) ?? 0) + 1);
    assert.deepEqual([...times].filter(([, n]) => n > 1), [], "no launch ran twice");
    const completed = results.filter((r) => !r.error);
    const failed = results.filter((r) => r.error);
    for (const { i, stdout } of completed) {
      assert.equal(stdout, `${i}\n`);
      assert.equal(times.get(i), 1, `launch ${i} completed, so it ran exactly once`);
    }
    for (const { error } of failed) {
      assert.ok(error instanceof HelperExitedError, String(error));
      assert.match(error.message, /transport ".*sshd-test"/);
    }
    // Only what was on the killed host when it died can fail; the queue moved on.
    assert.ok(failed.length >= 1 && failed.length <= 24, `${failed.length} failed`);
    assert.equal(completed.length + failed.length, 200);
    t.diagnostic(`${completed.length} completed, ${failed.length} failed with the killed host`);
    const stats = pool.stats();
    assert.ok(stats[1].down instanceof HelperExitedError, "the killed host is out");
    assert.deepEqual(stats.map((s) => s.inFlight), [0, 0, 0]);
    // Out of rotation: new launches go to the others.
    const where = await Promise.all(Array.from({ length: 6 }, () => pool.execFile(...WHERE)));
    assert.ok(where.every(({ stdout }) => stdout !== victim.cache));
    const pinned = await rejection(pool.execFile("true", [], { host: 1 }));
    assert.match(pinned.message, /pinned to is down/);
    await pool.shutdown();
  });
});
