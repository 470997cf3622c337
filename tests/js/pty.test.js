// spawnhost/pty (docs/pty.md): a real terminal on the other side. Run as is (Node reads
// the master) and with SPAWNHOST_STREAMS=relay (the helper relays it; .ci/run).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn as cpSpawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import * as pty from "spawnhost/pty";
import { ptySkip, handsOver, untilExit, waitFor } from "./support/pty.js";

const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const shell = (script, options) => pty.spawn("/bin/sh", ["-c", script], options);
const bashEnv = { ...process.env, PS1: "$ ", HISTFILE: "/dev/null" };

describe("spawnhost/pty", { skip: ptySkip }, () => {
  test("the child sees a terminal on fds 0-2, with TERM from `name`, as its session leader", async () => {
    const term = shell('test -t 0 && test -t 1 && test -t 2 && echo "tty:$TERM"; echo "sid:$(cut -d" " -f6 /proc/$$/stat) pid:$$"', { name: "xterm-256color" });
    const { out, exit } = await untilExit(term);
    assert.match(out, /tty:xterm-256color\r\n/);
    const [, sid, pid] = out.match(/sid:(\d+) pid:(\d+)/);
    assert.equal(sid, pid, "a session of its own");
    assert.equal(Number(pid), term.pid);
    assert.deepEqual(exit, { exitCode: 0, signal: 0 });
  });

  test("stty size gives the size asked for, then the new one after resize, with SIGWINCH", async () => {
    const term = pty.spawn("bash", ["--norc", "--noprofile", "-c", 'trap "echo winch; stty size" WINCH; stty size; echo ready; while :; do sleep 0.05; done'], { cols: 100, rows: 30 });
    const done = untilExit(term);
    assert.match(await waitFor(term, /ready/), /^30 100\r\n/);
    term.resize(120, 40);
    assert.deepEqual([term.cols, term.rows], [120, 40]);
    await waitFor(term, /winch\r\n40 120\r\n/);
    term.kill("SIGKILL");
    assert.deepEqual((await done).exit, { exitCode: 0, signal: 9 });
  });

  test("a size asked for before the helper started the child still reaches it", async () => {
    const term = shell("sleep 0.3; stty size", { cols: 50, rows: 10 });
    term.resize(70, 12);
    const { out } = await untilExit(term);
    assert.match(out, /^12 70\r\n$/);
  });

  test("a raw-mode program reads single keys; ^C is a key there", async () => {
    const term = pty.spawn(process.execPath, [fixture("pty-raw-keys.mjs")]);
    const done = untilExit(term);
    await waitFor(term, /ready/);
    term.write("a");
    await waitFor(term, /key 61\r\n/);
    term.write("\x03");
    await waitFor(term, /key 03\r\n/);
    term.write("\x1b[A");
    await waitFor(term, /key 1b5b41\r\n/);
    term.write("q");
    assert.deepEqual((await done).exit, { exitCode: 0, signal: 0 });
  });

  test("^C interrupts the shell's foreground job; `process` names it while it runs", async () => {
    const term = pty.spawn("bash", ["--norc", "--noprofile", "-i"], { env: bashEnv });
    const done = untilExit(term);
    await waitFor(term, /\$ $/);
    assert.equal(term.process, "bash");
    term.write("sleep 30\r");
    const deadline = Date.now() + 10000;
    while (term.process !== "sleep" && Date.now() < deadline) await sleep(20);
    assert.equal(term.process, "sleep");
    term.write("\x03");
    await waitFor(term, /\$ $/);
    term.write("echo status=$?\r");
    await waitFor(term, /status=130\r\n/);
    term.write("exit 3\r");
    assert.deepEqual((await done).exit, { exitCode: 3, signal: 0 });
  });

  test("^D at an empty line ends cat; what was typed is echoed and read", async () => {
    const term = pty.spawn("cat", []);
    const done = untilExit(term);
    term.write("abc\r");
    await waitFor(term, /abc\r\nabc\r\n/);
    term.write("\x04");
    const { exit } = await done;
    assert.deepEqual(exit, { exitCode: 0, signal: 0 });
  });

  test("exit codes and signals come through, as node-pty gives them", async () => {
    assert.deepEqual((await untilExit(shell("exit 7"))).exit, { exitCode: 7, signal: 0 });
    const slept = shell("sleep 30");
    const ended = untilExit(slept);
    await sleep(100);
    slept.kill(); // SIGHUP, node-pty's default
    assert.deepEqual((await ended).exit, { exitCode: 0, signal: 1 });
    const cat = pty.spawn("cat", []);
    const interrupted = untilExit(cat);
    await sleep(100);
    cat.write("\x03");
    assert.deepEqual((await interrupted).exit, { exitCode: 0, signal: 2 });
  });

  test("multi-byte UTF-8 cut across chunks arrives whole with encoding utf8", async () => {
    const text = "é界🎉ü".repeat(3);
    const writer = `const b = Buffer.from(${JSON.stringify(text)}); let i = 0;
      const next = () => { if (i === b.length) return; process.stdout.write(b.subarray(i, i + 1), () => setTimeout(next, 3)); i++; }; next();`;
    const raw = await untilExit(pty.spawn(process.execPath, ["-e", writer], { encoding: null }));
    assert.ok(raw.chunks.some((chunk) => chunk.toString("utf8").includes("\ufffd")), "the bytes did arrive cut inside characters");
    const decoded = await untilExit(pty.spawn(process.execPath, ["-e", writer]));
    assert.equal(decoded.out, text);
    assert.ok(decoded.chunks.every((chunk) => !chunk.includes("\ufffd")));
  });

  test("exit comes after every byte, and nothing after it; writes and resizes after it do nothing", async () => {
    // Three times: what libuv would drop (a hang-up after a short read, master.js) varies.
    for (let round = 0; round < 3; round++) {
      const term = shell("head -c 300000 /dev/zero | tr '\\0' x; echo; echo end");
      let afterExit = 0;
      let exited = false;
      term.onData(() => exited && afterExit++);
      const { out } = await untilExit(term);
      exited = true;
      assert.equal(out.length, 300007, `all of it, round ${round}`);
      assert.ok(out.endsWith("x\r\nend\r\n"));
      term.write("more\r");
      term.resize(10, 10);
      await sleep(100);
      assert.equal(afterExit, 0);
    }
  });

  test("what the child wrote before it exited arrives whole, though Node read none of it until then", async () => {
    // Node's thread is held while the child writes 6000 bytes (more than one read of the
    // master gives, less than the terminal holds) and exits: Node's first read then
    // comes after the hang-up and is short, which libuv takes for the end (master.js).
    // Whatever reads the master, none is lost.
    const term = shell("echo ready; sleep 0.3; head -c 6000 /dev/zero | tr '\\0' y; echo; echo end");
    const done = untilExit(term);
    await waitFor(term, /ready/);
    // Held until the child has exited (its /proc entry gone, or a zombie), 10 s at most.
    const exited = () => {
      try {
        return readFileSync(`/proc/${term.pid}/stat`, "utf8").split(") ")[1][0] === "Z";
      } catch {
        return true;
      }
    };
    const held = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !exited() && waited < 10_000; waited += 20) Atomics.wait(held, 0, 0, 20);
    assert.ok(exited(), "the child exited while Node's thread was held");
    const { out } = await done;
    assert.equal(out.length, "ready\r\n".length + 6000 + "\r\nend\r\n".length);
    assert.ok(out.endsWith("y\r\nend\r\n"));
  });

  test("with handleFlowControl, XOFF and XON pause and resume instead of reaching the child", async () => {
    const term = pty.spawn(process.execPath, [fixture("pty-raw-keys.mjs")], { handleFlowControl: true });
    const done = untilExit(term);
    await waitFor(term, /ready/);
    term.write("\x13");
    let seen = "";
    term.onData((d) => (seen += d));
    term.write("a");
    await sleep(300);
    assert.equal(seen, "", "paused: the child's answer waits in the terminal");
    term.write("\x11");
    await waitFor(term, /key 61\r\n/);
    term.write("q");
    const { out } = await done;
    assert.match(out, /key 61\r\n/);
    assert.doesNotMatch(out, /key 13|key 11/);
    const plain = pty.spawn(process.execPath, [fixture("pty-raw-keys.mjs")]);
    const plainDone = untilExit(plain);
    await waitFor(plain, /ready/);
    plain.write("\x13");
    await waitFor(plain, /key 13\r\n/);
    plain.write("q");
    await plainDone;
  });

  test("a file that cannot run shows why and exits 1 (node-pty's child's way), `error` only when listened for; bad options throw", async () => {
    const term = pty.spawn("/nonexistent/program", []);
    const error = await new Promise((resolve) => term.on("error", resolve));
    assert.equal(error.code, "ENOENT");
    assert.throws(() => pty.spawn("sh", [], { cols: "wide" }), { constructor: Error, message: "cols must be a number (not a string)" });
    assert.throws(() => pty.spawn("sh", "-c true"), { constructor: Error, message: "args as a string is not supported on unix." });
    assert.throws(() => pty.spawn("sh", [], { encoding: "nope" }), { code: "ERR_UNKNOWN_ENCODING" });
    // A failure Node's spawn() throws rather than emits (E2BIG: one argument longer than
    // Linux's 128 KiB limit) ends the same way, with child_process's code on `error`.
    assert.throws(() => cpSpawn("true", ["x".repeat(200_000)]), { code: "E2BIG" });
    const tooLong = pty.spawn("true", ["x".repeat(200_000)]);
    let out = "";
    tooLong.onData((data) => (out += data));
    const errored = new Promise((resolve) => tooLong.on("error", resolve));
    const exit = await new Promise((resolve) => tooLong.onExit(resolve));
    assert.equal((await errored).code, "E2BIG");
    assert.equal(out, "execvp(3) failed.: Argument list too long\r\n");
    assert.deepEqual(exit, { exitCode: 1, signal: 0 });
    const live = shell("sleep 5");
    assert.throws(() => live.resize(-1, 5), { constructor: Error, message: "resizing must be done using positive cols and rows" });
    live.kill("SIGKILL");
    await untilExit(live);
  });

  test(handsOver ? "Node holds the master itself (handed over)" : "the helper holds the master (relayed)", async () => {
    const ptmx = () => readdirSync("/proc/self/fd").filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === "/dev/ptmx";
      } catch {
        return false;
      }
    }).length;
    const before = ptmx();
    const term = shell("echo hi; sleep 0.5");
    await waitFor(term, /hi/);
    assert.equal(ptmx() - before, handsOver ? 1 : 0);
    await untilExit(term);
    assert.equal(ptmx(), before);
  });
});
