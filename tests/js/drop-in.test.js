// spawnhost/child_process's own promises: a ChildProcess at once (streams, queued stdin,
// kill before the process exists, Node's event order), fork's channel, what falls back
// to node:child_process and how stats() reports it, and configure().
import { test } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";
import { HostChild } from "spawnhost";
import { once, readAll } from "./support/modes.js";

const ipcChild = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));

function events(child) {
  const seen = [];
  for (const event of ["spawn", "error", "exit", "close"]) child.on(event, (...args) => seen.push([event, ...args.map((a) => a?.code ?? a)]));
  return { seen, closed: once(child, "close") };
}

test("spawn() returns a ChildProcess at once, with its streams", () => {
  const child = dropIn.spawn("cat");
  try {
    assert.ok(child instanceof childProcess.ChildProcess);
    assert.equal(child.constructor, childProcess.ChildProcess);
    assert.ok(child.stdin && child.stdout && child.stderr);
    assert.deepEqual(child.stdio, [child.stdin, child.stdout, child.stderr]);
    assert.equal(child.exitCode, null);
    assert.equal(child.send, undefined, "no IPC channel: no send(), as with Node");
  } finally {
    // Also when an assertion failed: a cat left running would keep this file alive.
    child.stdin.end();
    child.kill();
  }
});

test("stdin written before the process exists reaches it", async () => {
  const child = dropIn.spawn("cat");
  child.stdin.write("early ");
  child.stdin.end("and late\n");
  assert.equal(await readAll(child.stdout.setEncoding("utf8")), "early and late\n");
});

test("a _destroy wrapped on stdin at spawn() is the one called at exit, as execa's spy on it needs", async () => {
  for (const face of [childProcess, dropIn]) {
    const child = face.spawn("echo", ["hi"]);
    const { _destroy } = child.stdin;
    let called = 0;
    child.stdin._destroy = function (...args) {
      called++;
      return _destroy.apply(this, args);
    };
    child.stdout.resume();
    await once(child, "close");
    assert.equal(called, 1, face === dropIn ? "spawnhost/child_process" : "node:child_process");
  }
});

test("kill() before the process exists is honoured, with Node's events", async () => {
  const child = dropIn.spawn("sleep", ["5"]);
  const { seen, closed } = events(child);
  assert.equal(child.kill(), true);
  assert.equal(child.killed, true);
  await closed;
  assert.deepEqual(seen, [["spawn"], ["exit", null, "SIGTERM"], ["close", null, "SIGTERM"]]);
});

test("pid is a number once the child has spawned", async () => {
  const child = dropIn.spawn("true");
  await once(child, "spawn");
  assert.equal(typeof child.pid, "number");
  await once(child, "close");
});

test("pid is a number right after spawn() returns", async () => {
  const child = dropIn.spawn("true");
  assert.equal(typeof child.pid, "number");
  await once(child, "close");
});

test("a program that does not exist: error then close, pid undefined", async () => {
  const child = dropIn.spawn("spawnhost-missing-program");
  const { seen, closed } = events(child);
  await closed;
  assert.deepEqual(seen, [["error", "ENOENT"], ["close", -2, null]]);
  assert.equal(child.pid, undefined);
});

test("fork(): messages both ways, channel, connected, disconnect", async () => {
  const child = dropIn.fork(ipcChild, ["echo"]);
  assert.ok(child instanceof childProcess.ChildProcess);
  assert.equal(typeof child.send, "function");
  assert.ok(child.channel);
  assert.equal(child.connected, true);
  assert.deepEqual(child.stdio, [null, null, null, null]);
  child.send({ hello: "child" });
  const [message] = await once(child, "message");
  assert.deepEqual(message, { hello: "child" });
  child.disconnect();
  await once(child, "disconnect");
  assert.equal(child.connected, false);
  child.kill();
  await once(child, "close");
});

test("fork(): a send made before a process that never starts calls back with an error", async () => {
  // Node's callback gets EPIPE (its socket's peer never existed); here the launch
  // reports ERR_IPC_CHANNEL_CLOSED. Either way the callback is not left waiting.
  const child = dropIn.fork(ipcChild, ["echo"], { execPath: "/nonexistent/node" });
  child.on("error", () => {});
  const [error] = await new Promise((resolve) => child.send("lost", (...args) => resolve(args)));
  assert.equal(error?.code, "ERR_IPC_CHANNEL_CLOSED");
  await once(child, "close");
});

test("fork(): sends still unwritten when the child is killed raise no error, as with Node", async () => {
  for (const api of [childProcess, dropIn]) {
    const child = api.fork(ipcChild, ["stall", "2000"]);
    const errors = [];
    child.on("error", (error) => errors.push(error.code));
    await once(child, "spawn");
    for (let i = 0; i < 16; i++) child.send("x".repeat(64 * 1024));
    child.kill("SIGKILL");
    await once(child, "close");
    assert.deepEqual(errors, [], api === dropIn ? "spawnhost/child_process" : "node:child_process");
  }
});

test("util.promisify(exec) and (execFile) resolve { stdout, stderr } and expose the child", async () => {
  const promise = promisify(dropIn.exec)("echo out; echo err >&2");
  assert.ok(promise.child instanceof childProcess.ChildProcess);
  assert.deepEqual(await promise, { stdout: "out\n", stderr: "err\n" });
  assert.deepEqual(await promisify(dropIn.execFile)("echo", ["file"]), { stdout: "file\n", stderr: "" });
});

test("what the helper cannot honour runs on node:child_process, counted with its reason", async () => {
  const before = dropIn.stats();
  const child = dropIn.spawn("echo", ["x"], { stdio: ["ignore", "pipe", "pipe", "pipe"] });
  await once(child, "close");
  const crossed = dropIn.spawn("true", [], { stdio: ["pipe", "pipe", 1] });
  await once(crossed, "close");
  const after = dropIn.stats();
  assert.equal(after.fallback - before.fallback, 2);
  assert.equal(after.fallbackReasons['more than three stdio entries besides "ipc"'] - (before.fallbackReasons['more than three stdio entries besides "ipc"'] ?? 0), 1);
  assert.equal(after.fallbackReasons["stdio[2] is the descriptor 1"] - (before.fallbackReasons["stdio[2] is the descriptor 1"] ?? 0), 1);
});

test("process.stdin, process.stdout and process.stderr as stdio are the helper's: fds 0-2 inherited, as child_process reads their `fd`", async () => {
  const before = dropIn.stats();
  const child = dropIn.spawn("true", [], { stdio: [process.stdin, process.stdout, process.stderr] });
  assert.deepEqual(await once(child, "close"), [0, null]);
  assert.equal(dropIn.stats().fallback, before.fallback);
});

test("an invalid call throws Node's error and counts nothing", () => {
  const before = dropIn.stats();
  assert.throws(() => dropIn.spawn("echo", [], { timeout: -1 }), { name: "RangeError", code: "ERR_OUT_OF_RANGE" });
  assert.deepEqual(dropIn.stats(), before);
});

test("the sync functions run through the helper, and are counted as helper launches", () => {
  const before = dropIn.stats();
  assert.equal(dropIn.execFileSync("echo", ["sync"], { encoding: "utf8" }), "sync\n");
  assert.equal(dropIn.spawnSync("sh", ["-c", "exit 4"]).status, 4);
  const after = dropIn.stats();
  assert.deepEqual([after.helper - before.helper, after.fallback - before.fallback], [2, 0]);
});

test("configure() checks its options", () => {
  assert.throws(() => dropIn.configure({ bogus: 1 }), { name: "TypeError", message: /unknown option "bogus"/ });
  assert.throws(() => dropIn.configure({ maxLaunchThreads: 0 }), { code: "ERR_OUT_OF_RANGE" });
  assert.throws(() => dropIn.configure(null), TypeError);
});

test("an unref'd child does not keep Node alive", async () => {
  const script = `import { spawn } from "spawnhost/child_process"; spawn("sleep", ["30"], { stdio: "ignore" }).unref();`;
  const started = Date.now();
  await promisify(childProcess.execFile)(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 });
  assert.ok(Date.now() - started < 15_000);
});

test("the functions have Node's names and arities", () => {
  for (const name of ["spawn", "exec", "execFile", "fork", "spawnSync", "execSync", "execFileSync"]) {
    assert.deepEqual([dropIn[name].name, dropIn[name].length], [childProcess[name].name, childProcess[name].length], name);
  }
});

test("SPAWNHOST_OPTIONS sets the shared host's options", async () => {
  const script = `import { spawn } from "spawnhost/child_process"; try { spawn("true"); } catch (error) { console.log(error.name); }`;
  const env = { ...process.env, SPAWNHOST_OPTIONS: JSON.stringify({ helperPath: "/nonexistent/spawnhost-helper" }) };
  const { stdout } = await promisify(childProcess.execFile)(process.execPath, ["--input-type=module", "-e", script], { env, timeout: 20_000 });
  assert.equal(stdout.trim(), "HelperNotFoundError");
});

test("arguments with shell give Node's DEP0190 warning where Node does (24 and later), once", async () => {
  const script = `import { spawn, execFile } from "spawnhost/child_process"; process.on("warning", (w) => console.log(w.code));` +
    ` spawn("echo", ["a"], { shell: true, stdio: "ignore" }); execFile("echo", ["b"], { shell: "/bin/sh" }, () => {}); spawn("echo", [], { shell: true, stdio: "ignore" });`;
  const run = async (module) => (await promisify(childProcess.execFile)(process.execPath,
    ["--input-type=module", "-e", script.replaceAll("spawnhost/child_process", module)], { timeout: 20_000 })).stdout;
  assert.equal(await run("spawnhost/child_process"), await run("node:child_process"));
});

test("a pid read before the helper answered waits through HostChild#waitForPid, and events stay out of the read", async () => {
  // Stands in for the helper's sync channel: answers the wait with a pid at once and
  // emits what the answer would (spawn) from inside it.
  const had = Object.getOwnPropertyDescriptor(HostChild.prototype, "waitForPid");
  let waits = 0;
  HostChild.prototype.waitForPid = function waitForPid() {
    waits++;
    this.pid ??= 4_000_000;
    this.emit("spawn");
  };
  try {
    const child = dropIn.spawn("true");
    let spawnedDuringRead = false;
    child.on("spawn", () => { spawnedDuringRead = reading; });
    let reading = true;
    const pid = child.pid;
    reading = false;
    assert.equal(typeof pid, "number");
    assert.equal(waits, 1);
    assert.equal(spawnedDuringRead, false, "the spawn event came from inside the pid read");
    await once(child, "close");
  } finally {
    if (had) Object.defineProperty(HostChild.prototype, "waitForPid", had);
    else delete HostChild.prototype.waitForPid;
  }
});

test("an abort right after spawn() emits error inside abort(), and a signal aborted before the call errs after spawn, as Node's", async () => {
  const sequence = async (api, abortWhen) => {
    const controller = new AbortController();
    if (abortWhen === "before") controller.abort();
    const child = api.spawn("sleep", ["5"], { signal: controller.signal });
    const seen = [];
    for (const event of ["spawn", "error", "exit", "close"]) child.on(event, () => seen.push(event));
    if (abortWhen === "after") {
      controller.abort();
      seen.push("abort() returned");
    }
    await once(child, "close");
    return [seen, child.killed, child.signalCode];
  };
  for (const when of ["after", "before"]) {
    assert.deepEqual(await sequence(dropIn, when), await sequence(childProcess, when), `abort ${when} spawn()`);
  }
});
test("an abort that comes while a slow launch is on its way: spawn first, then the error and execFile's callback, as Node's", async () => {
  // The helper holds each launch 400 ms, the abort comes at 50: Node's child had emitted
  // `spawn` by then, so ours waits for it (CI saw callback and error before spawn).
  const fixture = fileURLToPath(new URL("../fixtures/abort-during-launch.mjs", import.meta.url));
  const env = { ...process.env, SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS: "400" };
  const run = async (api) => JSON.parse((await promisify(childProcess.execFile)(process.execPath, [fixture, api], { env })).stdout);
  const [node, ours] = await Promise.all([run("node:child_process"), run("spawnhost/child_process")]);
  for (const form of ["spawned", "execFiled"]) {
    const order = ours[form].seen.map(([event]) => event);
    assert.ok(order.indexOf("abort() returned") < order.indexOf("spawn"), `the abort came during the launch: ${order}`);
    // The one difference: Node emits the error inside abort(), ours after it returns.
    const events = ({ seen, ...rest }) => ({ seen: seen.filter(([event]) => event !== "abort() returned"), ...rest });
    assert.deepEqual(events(ours[form]), events(node[form]), form);
  }
});

