// spawnSync's core through the helper's sync channel, against node:child_process's
// spawnSync: each case runs both and compares what the face would shape (pid aside).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { hostFor } from "./support/modes.js";
import { ProcessHost } from "spawnhost";
import { locateHelper } from "../../js/src/helper/locate.js";
import { scratchDir } from "./support/scratch.js";

const host = hostFor("helper");
after(() => host.shutdown());

const scratch = scratchDir("spawnhost-sync-test-");
writeFileSync(`${scratch}/not-executable.sh`, "#!/bin/sh\necho no\n");
chmodSync(`${scratch}/not-executable.sh`, 0o644);
const allBytes = Array.from({ length: 256 }, (_, i) => `\\${i.toString(8).padStart(3, "0")}`).join("");

/** The normalized request the face would build from spawnSync's arguments. */
export function syncRequest(file, args = [], options = {}) {
  const env = options.env ?? process.env;
  const stdio = typeof options.stdio === "string" ? [options.stdio, options.stdio, options.stdio] : options.stdio ?? ["pipe", "pipe", "pipe"];
  return {
    file, args, envPairs: Object.entries(env).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`),
    cwd: options.cwd, stdio, input: options.input === undefined ? undefined : Buffer.from(options.input),
    timeout: options.timeout, killSignal: options.killSignal, maxBuffer: options.maxBuffer ?? 1024 * 1024,
    uid: options.uid, gid: options.gid,
  };
}

// child_process.spawnSync's result, in the raw shape (before encoding and `output`).
function nodeRaw(file, args, options) {
  const r = spawnSync(file, args, { maxBuffer: 1024 * 1024, ...options });
  const error = r.error && { errno: r.error.errno, code: r.error.code, syscall: r.error.syscall, path: r.error.path, spawnargs: r.error.spawnargs };
  return { pid: r.pid, stdout: r.stdout ?? null, stderr: r.stderr ?? null, status: r.status, signal: r.signal, error };
}

function both(file, args, options = {}) {
  return { ours: host.launchSync(syncRequest(file, args, options)), node: nodeRaw(file, args, options) };
}

// Everything but pid, which differs by nature (0 in both when nothing started).
function assertSame({ ours, node }) {
  assert.deepEqual({ ...ours, pid: ours.pid > 0 }, { ...node, pid: node.pid > 0 });
}

test("exit codes are the child's", () => {
  for (const code of [0, 1, 3, 255]) assertSame(both("sh", ["-c", `exit ${code}`]));
});

test("a child killed by a signal reports it, with no status", () => {
  const r = both("sh", ["-c", "kill -USR1 $$"]);
  assertSame(r);
  assert.equal(r.ours.signal, "SIGUSR1");
});

test("stdout and stderr carry every byte value", () => {
  const r = both("sh", ["-c", `printf '${allBytes}'; printf 'err${allBytes}' >&2`]);
  assertSame(r);
  assert.equal(r.ours.stdout.length, 256);
});

test("input is written to stdin, which then ends", () => {
  assertSame(both("cat", [], { input: "some input\n" }));
  assertSame(both("wc", ["-c"], { input: Buffer.alloc(3 << 20, 7) }));
});

test("a child that reads no input gets EPIPE, with its status", () => {
  const r = both("true", [], { input: Buffer.alloc(10 << 20) });
  assertSame(r);
  assert.equal(r.ours.error.code, "EPIPE");
});

test("env and cwd reach the child", () => {
  assertSame(both("sh", ["-c", "pwd; printf %s \"$ONLY\""], { env: { ONLY: "ü=1", PATH: process.env.PATH }, cwd: scratch }));
});

test("a missing program fails with ENOENT, pid 0 and no output", () => {
  const r = both("/nonexistent/program", ["a", "b"]);
  assertSame(r);
  assert.equal(r.ours.pid, 0);
  assert.equal(r.ours.error.syscall, "spawnSync /nonexistent/program");
});

test("a program without execute permission fails with EACCES", () => {
  assertSame(both(`${scratch}/not-executable.sh`, []));
});

test("a missing cwd fails with ENOENT naming the program", () => {
  assertSame(both("/bin/true", [], { cwd: `${scratch}/missing` }));
});

test("timeout kills with killSignal and reports ETIMEDOUT", () => {
  const r = both("sleep", ["5"], { timeout: 100 });
  assertSame(r);
  assert.equal(r.ours.error.code, "ETIMEDOUT");
  assert.equal(r.ours.signal, "SIGTERM");
  assertSame(both("sleep", ["5"], { timeout: 100, killSignal: "SIGKILL" }));
});

test("output past maxBuffer kills the child and reports ENOBUFS, keeping what came", () => {
  const endless = ["-c", "while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done"];
  const { ours, node } = both("sh", endless, { maxBuffer: 1000 });
  // How much arrived before the child died depends on read sizes and scheduling, in
  // Node as here; everything else is the same.
  assert.ok(ours.stdout.length > 1000 && node.stdout.length > 1000);
  assertSame({ ours: { ...ours, stdout: null }, node: { ...node, stdout: null } });
  assert.equal(ours.error.code, "ENOBUFS");
});

test("maxBuffer counts stdout and stderr together, as Node does", () => {
  const r = both("sh", ["-c", "head -c 600 /dev/zero; head -c 600 /dev/zero >&2; sleep 5"], { maxBuffer: 1000 });
  assertSame(r);
  assert.equal(r.ours.error.code, "ENOBUFS");
  assertSame(both("sh", ["-c", "head -c 3000 /dev/zero"], { maxBuffer: 0 }));
});

test("stdio ignore gives no output buffers", () => {
  assertSame(both("sh", ["-c", "echo out; echo err >&2"], { stdio: "ignore" }));
  assertSame(both("sh", ["-c", "echo out; echo err >&2; exit 4"], { stdio: ["ignore", "pipe", "ignore"] }));
});

test("stdio inherit writes to Node's own stdout", () => {
  const script = `
    import { ProcessHost } from "spawnhost";
    const host = new ProcessHost({ fallback: "error" });
    const r = host.launchSync({ file: "sh", args: ["-c", "echo inherited; exit 2"], envPairs: ["PATH=${process.env.PATH}"],
      stdio: ["inherit", "inherit", "inherit"] });
    console.log("status", r.status, r.stdout);
    await host.shutdown();`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 10_000 });
  assert.equal(r.stdout, "inherited\nstatus 2 null\n", r.stderr);
});

test("5 MiB of output arrive whole", () => {
  const r = both("head", ["-c", String(5 << 20), "/dev/urandom"], { maxBuffer: 16 << 20 });
  assert.equal(r.ours.stdout.length, 5 << 20);
  assert.equal(r.ours.status, 0);
  const same = both("sh", ["-c", `head -c ${5 << 20} /dev/zero | tr '\\0' x`], { maxBuffer: 16 << 20 });
  assertSame(same);
});

test("many calls in a row each get their own result", () => {
  for (let i = 0; i < 300; i++) {
    const r = host.launchSync(syncRequest("sh", ["-c", `echo ${i}; exit ${i % 7}`]));
    assert.equal(r.stdout.toString(), `${i}\n`);
    assert.equal(r.status, i % 7);
  }
});

test("uid and gid are applied", { skip: process.getuid?.() !== 0 && "needs root" }, () => {
  assertSame(both("id", ["-u", "-g"], { uid: 65534, gid: 65534 }));
  assertSame(both("id", ["-u"], { uid: 65534 }));
});

test("a helper killed while a call waits fails the call with a clear error", async () => {
  const victim = hostFor("helper");
  try {
    await victim.execFile("true"); // the main channel's hello names the helper's pid
    const helperPid = victim.stats().helperPid;
    assert.ok(helperPid > 0);
    // The killer runs on its own; this thread is blocked in the sync call meanwhile.
    const killer = spawn("sh", ["-c", `sleep 0.3; kill -9 ${helperPid}`], { stdio: "ignore" });
    const started = performance.now();
    assert.throws(() => victim.launchSync(syncRequest("sleep", ["30"])), (error) => {
      assert.equal(error.name, "HelperExitedError");
      assert.match(error.message, /went away during a synchronous call/);
      return true;
    });
    assert.ok(performance.now() - started < 10_000);
    await new Promise((resolve) => killer.on("close", resolve));
  } finally {
    await victim.shutdown().catch(() => {});
  }
});

test("a helper that made no sync channel fails the call clearly, after a bounded wait", async () => {
  const wrapper = new URL("../fixtures/helper-no-sync-socket.sh", import.meta.url).pathname;
  process.env.SPAWNHOST_REAL_HELPER = locateHelper();
  const host = new ProcessHost({ fallback: "error", helperPath: wrapper, helperTimeoutMs: 300 });
  try {
    const started = performance.now();
    // The call waits for the sync channel's hello, sleeping, up to helperTimeoutMs.
    assert.throws(() => host.launchSync(syncRequest("true")), /said no hello on its sync channel within 300 ms/);
    assert.ok(performance.now() - started < 3000);
    // The main channel is unaffected.
    assert.equal((await host.execFile("echo", ["still here"])).stdout, "still here\n");
  } finally {
    await host.shutdown();
  }
});

test("a host whose helper has no sync channel falls back to child_process", async () => {
  // helperPlatform win32: the channel does not ask for FIFOs (the Windows helper has none).
  const windowsLike = hostFor("helper", { helperPlatform: "win32" });
  try {
    const { viaNode, ...ours } = windowsLike.launchSync(syncRequest("sh", ["-c", "echo fallback; exit 5"]));
    assert.equal(viaNode, true, "marked as run by node:child_process");
    assertSame({ ours, node: nodeRaw("sh", ["-c", "echo fallback; exit 5"]) });
  } finally {
    await windowsLike.shutdown();
  }
});

test("inline mode gives the same result shape", async () => {
  const inline = hostFor("inline");
  const { viaNode, ...ours } = inline.launchSync(syncRequest("sh", ["-c", "echo x; exit 2"]));
  assert.equal(viaNode, true, "marked as run by node:child_process");
  assertSame({ ours, node: nodeRaw("sh", ["-c", "echo x; exit 2"]) });
  await inline.shutdown();
});
