// When the far side of a transport goes wrong: uploads that arrive tampered or cut
// short are refused by the bootstrap, a killed ssh client is a helper death (pending
// calls reject naming the transport, remote children end within the grace period),
// the next call reconnects, and a transport that cannot connect says why.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ProcessHost, HelperExitedError } from "spawnhost";
import { modes, once, rejection } from "./support/modes.js";
import { alive, waitUntilGone } from "./support/procfs.js";
import { sshdUnavailable, startSshd } from "./support/sshd.js";
import { bootstrapArgv, shellJoin } from "../../js/src/helper/bootstrap.js";
import { locateHelper } from "../../js/src/helper/locate.js";

const unavailable = !modes().includes("helper") ? "SPAWNHOST_TEST_MODES has no helper mode" : sshdUnavailable();
if (unavailable && process.env.CI === "true" && modes().includes("helper")) {
  throw new Error(`CI: the remote-host tests need an sshd: ${unavailable}`);
}
if (unavailable) console.log(`# skipping the remote-host fault tests: ${unavailable}`);

// The helper under test, found as the library finds it (scripts/test-node-versions sets no path).
const HELPER = modes().includes("helper") ? locateHelper() : undefined;
const PLATFORM = `linux-${process.arch}`;

// Runs the bootstrap over ssh by hand; `answer(bytes, stdin)` is what this side sends
// when asked for the helper. Resolves with the bootstrap's lines and ssh's exit code.
function bootstrapByHand(sshd, cacheDir, answer) {
  const remote = shellJoin(bootstrapArgv({ cacheDir, helpers: { [PLATFORM]: HELPER } }, ["--version"]));
  const ssh = spawn("ssh", [...sshd.sshArgs, remote], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  ssh.stdout.setEncoding("latin1");
  ssh.stdout.on("data", (text) => {
    const before = out;
    out += text;
    if (!before.includes(" need ") && out.includes(" need ")) answer(readFileSync(HELPER), ssh.stdin);
  });
  ssh.stdin.on("error", () => {});
  return new Promise((resolve) => ssh.on("close", (code) => resolve({ code, lines: out.split("\n").filter((l) => l.startsWith("spawnhost-bootstrap ")) })));
}

describe("remote faults", { skip: unavailable ?? false }, () => {
  let sshd;
  before(async () => { sshd = await startSshd(); });
  after(async () => { await sshd?.remove(); });

  test("an upload whose SHA-256 does not match is refused, and nothing is installed", async () => {
    const cacheDir = join(sshd.dir, "tampered");
    const { code, lines } = await bootstrapByHand(sshd, cacheDir, (bytes, stdin) => {
      const tampered = Buffer.from(bytes);
      tampered[tampered.length >> 1] ^= 0xff; // same size, one byte changed in transit
      stdin.write(tampered);
    });
    assert.equal(code, 6);
    assert.match(lines.at(-1), /^spawnhost-bootstrap fail upload refused: its SHA-256 is [0-9a-f]{64}, expected [0-9a-f]{64}$/);
    const [dir] = readdirSync(cacheDir);
    assert.deepEqual(readdirSync(join(cacheDir, dir)), [], "neither the helper nor the partial upload stays");
  });

  test("an upload cut short is refused, and nothing is installed", async () => {
    const cacheDir = join(sshd.dir, "truncated");
    // Half of it, whatever the helper's size (under scripts/test-arm64 it is a small wrapper script).
    const half = readFileSync(HELPER).length >> 1;
    const { code, lines } = await bootstrapByHand(sshd, cacheDir, (bytes, stdin) => stdin.end(bytes.subarray(0, half)));
    assert.equal(code, 5);
    assert.match(lines.at(-1), new RegExp(`^spawnhost-bootstrap fail upload truncated: ${half} of \\d+ bytes arrived$`));
    const [dir] = readdirSync(cacheDir);
    assert.deepEqual(readdirSync(join(cacheDir, dir)), []);
  });

  test("a correct upload is installed and run: the helper answers --version", async () => {
    const cacheDir = join(sshd.dir, "good");
    const { code, lines } = await bootstrapByHand(sshd, cacheDir, (bytes, stdin) => stdin.write(bytes));
    assert.equal(code, 0);
    assert.match(lines.at(-1), new RegExp(`^spawnhost-bootstrap ready ${PLATFORM} Linux \\S+ uploaded$`));
  });

  test("killing the ssh client mid-launch: pending calls reject naming the transport, remote children end, the next call reconnects", async () => {
    const graceMs = 1000;
    const host = new ProcessHost({ transport: sshd.transport(), killGraceMs: graceMs });
    const before = await host.info();
    // Running children (one ignoring SIGTERM, so the grace period matters) and calls
    // waiting for their answer.
    const children = await Promise.all([
      host.spawn("sleep", ["60"]),
      host.spawn("sh", ["-c", "trap '' TERM; exec sleep 60"]),
    ]);
    const events = children.map((child) => {
      const seen = [];
      child.on("error", (error) => seen.push(error));
      child.on("close", () => seen.push("close"));
      return seen;
    });
    const pending = [host.execFile("sleep", ["60"]), host.execFile("sh", ["-c", "sleep 60"])];
    const pids = children.map((child) => child.pid);
    assert.ok(pids.every(alive));
    process.kill(before.transportPid, "SIGKILL");
    for (const error of await Promise.all(pending.map(rejection))) {
      assert.ok(error instanceof HelperExitedError, String(error));
      assert.match(error.message, /over the transport ".*sshd-test".*\(the transport ended: /s);
    }
    await Promise.all(children.map((child) => once(child, "close").catch(() => {})));
    for (const seen of events) {
      assert.ok(seen[0] instanceof HelperExitedError, `error first: ${seen}`);
      assert.equal(seen.at(-1), "close");
    }
    // sshd closes the session: the helper reads EOF, ends its children (SIGTERM, then
    // SIGKILL after the grace period) and exits. Nothing of it is left.
    const left = await waitUntilGone([...pids, before.helperPid], graceMs + 10_000);
    assert.deepEqual(left, [], "remote helper and children gone");
    const after = await host.info();
    assert.notEqual(after.transportPid, before.transportPid);
    assert.notEqual(after.helperPid, before.helperPid);
    assert.equal((await host.execFile("echo", ["reconnected"])).stdout, "reconnected\n");
    await host.shutdown();
  });

  test("a transport that cannot connect rejects with ssh's own words", async () => {
    const host = new ProcessHost({ transport: { command: "ssh", args: [...sshd.sshArgs.slice(0, -1), "-o", "BatchMode=yes", "-p", "1", "127.0.0.1"] }, restart: false });
    const error = await rejection(host.execFile("true"));
    assert.ok(error instanceof HelperExitedError, String(error));
    assert.match(error.message, /exited with code 255 \(the transport ended: [^)]*\); its stderr ended with:\n.*(Connection refused|port 1)/s);
    assert.equal(error.exitCode, 255);
    await host.shutdown();
  });
});
