// A ProcessHost across a transport, against a real OpenSSH server on 127.0.0.1 (see
// support/sshd.js): launches and stdio over ssh, what is remote about them, the
// bootstrap's upload and cache, a dropped connection, and reconnecting.
// The "remote" is this machine, so the tests can check its processes and files directly.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProcessHost, HelperExitedError } from "spawnhost";
import { modes, once, rejection } from "./support/modes.js";
import { sshdUnavailable, startSshd } from "./support/sshd.js";
import { fileDigest } from "../../js/src/helper/bootstrap.js";
import { locateHelper } from "../../js/src/helper/locate.js";
import { scratchDir } from "./support/scratch.js";

const unavailable = !modes().includes("helper") ? "SPAWNHOST_TEST_MODES has no helper mode" : sshdUnavailable();
if (unavailable && process.env.CI === "true" && modes().includes("helper")) {
  throw new Error(`CI: the remote-host tests need an sshd: ${unavailable}`);
}
if (unavailable) console.log(`# skipping the remote-host tests: ${unavailable}`);

// The helper under test, found as the library finds it (scripts/test-node-versions sets no path).
const HELPER = modes().includes("helper") ? locateHelper() : undefined;

describe("a host over ssh", { skip: unavailable ?? false }, () => {
  let sshd;
  const hosts = [];
  const hostOver = (extra = {}, options = {}) => {
    const host = new ProcessHost({ transport: sshd.transport(extra), ...options });
    hosts.push(host);
    return host;
  };
  before(async () => { sshd = await startSshd(); });
  after(async () => {
    await Promise.allSettled(hosts.map((host) => host.shutdown()));
    await sshd?.remove();
  });

  test("execFile runs on the remote: its env and cwd are the remote helper's unless given", async () => {
    process.env.SPAWNHOST_ONLY_IN_NODE = "node's";
    const host = hostOver();
    const { stdout } = await host.execFile("sh", ["-c", "printf '%s|%s|%s' \"$XDG_CACHE_HOME\" \"${SPAWNHOST_ONLY_IN_NODE-unset}\" \"$(pwd)\""]);
    const [cache, onlyInNode, cwd] = stdout.split("|");
    assert.equal(cache, sshd.cache, "the sshd session's environment");
    assert.equal(onlyInNode, "unset", "Node's process.env does not travel");
    assert.equal(cwd, (await host.execFile("sh", ["-c", "printf %s \"$HOME\""])).stdout, "the login directory");
    const given = await host.execFile("sh", ["-c", "printf '%s|%s' \"$A\" \"$(pwd)\""], { env: { A: "given" }, cwd: "/tmp" });
    assert.equal(given.stdout, "given|/tmp");
    const failed = await rejection(host.execFile("sh", ["-c", "echo oops >&2; exit 3"]));
    assert.equal(failed.code, 3);
    assert.equal(failed.stderr, "oops\n");
    const viaShell = await host.exec("echo \"$0\" $((6 * 7))");
    assert.equal(viaShell.stdout, "/bin/sh 42\n", "exec's shell is the remote's /bin/sh");
    const missing = await rejection(host.execFile("/no/such/program"));
    assert.equal(missing.code, "ENOENT");
  });

  test("spawn relays stdio both ways, and output nobody reads stops being read", async () => {
    const host = hostOver();
    const cat = await host.spawn("cat");
    const payload = Buffer.alloc(3 * 1024 * 1024, "spawnhost ");
    cat.stdin.end(payload);
    const chunks = [];
    for await (const chunk of cat.stdout) chunks.push(chunk);
    assert.ok(Buffer.concat(chunks).equals(payload), "3 MiB through cat and back over ssh");

    // 64 MiB of output, paused: the helper stops reading once the credit is used, so
    // what crossed the connection stays far below what the child would write.
    const big = await host.spawn("head", ["-c", String(64 * 1024 * 1024), "/dev/zero"]);
    big.stdout.pause();
    let received = 0;
    big.stdout.on("data", (chunk) => { received += chunk.length; });
    big.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.ok(big.stdout.readableLength + received < 8 * 1024 * 1024, `${big.stdout.readableLength + received} bytes buffered while paused`);
    big.stdout.resume();
    const [code] = await once(big, "close");
    assert.equal(code, 0);
    assert.equal(received, 64 * 1024 * 1024);
  });

  test("info() reports the remote's OS and architecture, and whether the helper was uploaded", async () => {
    const cacheDir = join(sshd.dir, "info-cache");
    const first = await hostOver({ cacheDir }).info();
    assert.equal(first.os, "linux");
    assert.equal(first.arch, process.arch);
    assert.match(first.uname, /^Linux (x86_64|aarch64)$/);
    assert.equal(first.helper, "uploaded");
    assert.match(first.transport, /ssh .*sshd-test/);
    assert.ok(first.helperPid > 0 && first.transportPid > 0);
    const second = await hostOver({ cacheDir }).info();
    assert.equal(second.helper, "cached", "one round trip: the cached helper is used");
  });

  test("what a remote helper cannot do is a TypeError naming the option", async () => {
    const host = hostOver();
    for (const call of [
      () => host.spawn("true", [], { stdio: "inherit" }),
      () => host.spawn("true", [], { stdio: ["pipe", "pipe", 2] }),
      () => host.spawn("true", [], { stdio: ["pipe", "pipe", "pipe", "ipc"] }),
      () => host.fork("child.js"),
      () => host.fork("child.js", [], { execPath: "/usr/bin/node", env: {} }),
    ]) {
      const error = await rejection(call());
      assert.ok(error instanceof TypeError, String(error));
      assert.equal(error.code, "ERR_SPAWNHOST_REMOTE_UNSUPPORTED");
      assert.match(error.message, /"(stdio\[\d\]|env|execPath)" option .* not supported on a host reached over a transport/);
    }
    assert.match((await rejection(host.fork("child.js"))).message, /needs execPath, the path of node on the remote/);
    assert.match((await rejection(host.fork("c.js", [], { execPath: "/usr/bin/node", env: {} }))).message, /silent: true/);
    assert.match((await rejection(host.fork("c.js", [], { execPath: "/usr/bin/node", silent: true }))).message, /need an explicit env/);
    assert.throws(() => host.launchSync({ file: "true", args: [], envPairs: [], stdio: ["pipe", "pipe", "pipe"] }),
      (error) => error.code === "ERR_SPAWNHOST_REMOTE_SYNC" && /blocking calls cannot reach a host over the transport/.test(error.message));
    assert.throws(() => new ProcessHost({ mode: "inline", transport: sshd.transport() }), TypeError);
    assert.throws(() => new ProcessHost({ transport: { command: "" } }), /transport\.command/);
  });

  test("fork() with the remote's execPath and an explicit env: IPC over the connection", async () => {
    const host = hostOver();
    const module = join(sshd.dir, "echo-child.cjs");
    writeFileSync(module, "process.on('message', (m) => process.send({ echo: m, where: process.env.WHERE }, () => process.disconnect()));\n");
    const child = await host.fork(module, [], { execPath: process.execPath, env: { WHERE: "remote" }, silent: true });
    child.send({ hello: [1, 2, 3] });
    const [reply] = await once(child, "message");
    assert.deepEqual(reply, { echo: { hello: [1, 2, 3] }, where: "remote" });
    const [code] = await once(child, "close");
    assert.equal(code, 0);
  });

  test("removeTree runs on the remote", async () => {
    const host = hostOver();
    const tree = join(sshd.dir, "tree");
    mkdirSync(join(tree, "a", "b"), { recursive: true });
    writeFileSync(join(tree, "a", "b", "file"), "x");
    await host.removeTree(tree);
    assert.equal(existsSync(tree), false);
  });
});

describe("the bootstrap", { skip: unavailable ?? false }, () => {
  let sshd;
  before(async () => { sshd = await startSshd(); });
  after(async () => { await sshd?.remove(); });

  test("uploads once, then finds the helper in its cache by version and SHA-256", async () => {
    const cacheDir = join(sshd.dir, "cache-hit");
    const { sha256 } = fileDigest(HELPER);
    const one = new ProcessHost({ transport: sshd.transport({ cacheDir }) });
    assert.equal((await one.info()).helper, "uploaded");
    await one.shutdown();
    const entries = readdirSync(cacheDir);
    assert.equal(entries.length, 1);
    assert.match(entries[0], new RegExp(`^\\d+\\.\\d+\\.\\d+.*-${sha256}$`));
    assert.deepEqual(readdirSync(join(cacheDir, entries[0])), ["spawnhost-helper"], "no upload leftovers");
    assert.equal(fileDigest(join(cacheDir, entries[0], "spawnhost-helper")).sha256, sha256);
    const two = new ProcessHost({ transport: sshd.transport({ cacheDir }) });
    assert.equal((await two.info()).helper, "cached");
    assert.equal((await two.execFile("echo", ["cached"])).stdout, "cached\n");
    await two.shutdown();
  });

  test("a cached helper that does not match its hash is replaced, not run", async () => {
    const cacheDir = join(sshd.dir, "cache-tampered");
    const { sha256 } = fileDigest(HELPER);
    const version = JSON.parse(readFileSync(new URL("../../js/package.json", import.meta.url))).version;
    const dir = join(cacheDir, `${version}-${sha256}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "spawnhost-helper"), "#!/bin/sh\necho tampered\n", { mode: 0o700 });
    const host = new ProcessHost({ transport: sshd.transport({ cacheDir }) });
    assert.equal((await host.info()).helper, "uploaded");
    assert.equal(fileDigest(join(dir, "spawnhost-helper")).sha256, sha256);
    await host.shutdown();
  });

  test("a remote platform nobody offered a helper for fails every call with the bootstrap's reason", async () => {
    const host = new ProcessHost({ transport: sshd.transport({ helpers: {} }), restart: false });
    const error = await rejection(host.execFile("true"));
    assert.ok(error instanceof HelperExitedError, String(error));
    assert.match(error.message, /over the transport ".*sshd-test".*the bootstrap failed: no helper for linux-\w+/s);
    await host.shutdown();
  });
});

// Transports other than ssh, without an sshd: a command that takes the remote command as
// argv (as docker/podman/kubectl exec -i do), and one that starts the helper itself.
describe("argv-style and bootstrap-less transports", { skip: modes().includes("helper") ? false : "SPAWNHOST_TEST_MODES has no helper mode" }, () => {
  test("an argv transport (sh -c '\"$@\"', as exec -i) runs the bootstrap and the helper", async () => {
    const cacheDir = scratchDir("spawnhost-argv-");
    try {
      const host = new ProcessHost({ transport: { command: "sh", args: ["-c", "\"$@\"", "sh"], cacheDir, name: "local sh" } });
      const info = await host.info();
      assert.equal(info.helper, "uploaded");
      assert.equal(info.transport, "over the transport \"local sh\"");
      assert.equal((await host.execFile("echo", ["argv style"])).stdout, "argv style\n");
      await host.shutdown();
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  test("info() of a local host: this process's OS and architecture, no transport", async () => {
    const host = new ProcessHost({ fallback: "error" });
    const info = await host.info();
    assert.deepEqual([info.os, info.arch, info.transport, info.transportPid, info.helper], [process.platform, process.arch, null, 0, "local"]);
    assert.equal(info.helperPid, host.stats().helperPid);
    await host.shutdown();
  });

  test("bootstrap: false: the command starts the helper, whose OS is then unknown", async () => {
    const host = new ProcessHost({ transport: { command: HELPER, bootstrap: false } });
    const info = await host.info();
    assert.equal(info.os, null);
    assert.equal(info.helper, "as started");
    assert.equal((await host.execFile("echo", ["no bootstrap"])).stdout, "no bootstrap\n");
    await host.shutdown();
  });
});
