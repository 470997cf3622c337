// spawnhost/pty keeps node-pty 1.1's promises (docs/pty.md): each point run
// against @lydell/node-pty (node-pty 1.1 with prebuilt binaries) in the same run, and
// held to what node-pty does there, not to what its documentation says.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";
import * as pty from "spawnhost/pty";
import { ptySkip, handsOver } from "./support/pty.js";

const nodePty = createRequire(import.meta.url)("@lydell/node-pty");
const LIBRARIES = [["node-pty", nodePty], ["spawnhost/pty", pty]];
const root = fileURLToPath(new URL("../..", import.meta.url));

/** What a terminal shows until its exit, and the exit: { out, exit }. No `error` listener. */
function finished(term) {
  let out = "";
  term.onData((data) => (out += data));
  return new Promise((resolve) => term.onExit((exit) => resolve({ out, exit })));
}

/** Resolves with the output so far once it includes `text`. */
function shown(term, text) {
  let out = "";
  return new Promise((resolve) => {
    const listening = term.onData((data) => {
      out += data;
      if (out.includes(text)) {
        listening.dispose();
        resolve(out);
      }
    });
  });
}

/** How a call ends: its error's class, message and code, or "returned". */
function outcome(call) {
  try {
    call();
    return "returned";
  } catch (error) {
    return { class: error.constructor.name, message: error.message, code: error.code };
  }
}

describe("spawnhost/pty against node-pty 1.1", { skip: ptySkip }, () => {
  test("pid is the child's pid when spawn() returns, for terminals started in the same tick", async () => {
    for (const [name, library] of LIBRARIES) {
      const terms = [0, 1, 2].map(() => library.spawn("/bin/sh", ["-c", "echo $$"], {}));
      const pids = terms.map((term) => term.pid);
      const outputs = await Promise.all(terms.map(finished));
      assert.deepEqual(outputs.map(({ out }) => Number(out.trim())), pids, name);
    }
  });

  test("pid is there at once both ways: the master handed over to Node, and relayed by the helper", () => {
    // Each in a Node of its own, whichever way this run goes.
    const script = `import { spawn } from "spawnhost/pty";
      const term = spawn("/bin/sh", ["-c", "echo $$"]); const pid = term.pid; let out = "";
      term.onData((d) => (out += d)); term.onExit(() => console.log(JSON.stringify([pid, Number(out.trim())])));`;
    for (const streams of ["relay", undefined]) {
      const env = { ...process.env, SPAWNHOST_STREAMS: streams };
      if (streams === undefined) delete env.SPAWNHOST_STREAMS;
      const [pid, echoed] = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, env, encoding: "utf8" }));
      assert.equal(typeof pid, "number", `SPAWNHOST_STREAMS=${streams}`);
      assert.equal(pid, echoed);
    }
  });

  test("open(): a pair with no process, whose master and slave talk through the terminal", { skip: !handsOver && "open() needs Node to hold the master" }, async () => {
    for (const [name, library] of LIBRARIES) {
      const term = library.open({});
      assert.equal(term.pid, -1, name);
      assert.match(term.ptsName, /^\/dev\/pts\/\d+$/, name);
      let master = "";
      let slave = "";
      term.master.on("data", (data) => (master += data));
      term.slave.on("data", (data) => (slave += data));
      term.slave.write("slave\n");
      term.master.write("master\n");
      for (let waited = 0; waited < 5000 && !(master === "slave\r\nmaster\r\n" && slave === "master\n"); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual([master, slave], ["slave\r\nmaster\r\n", "master\n"], name);
      term.slave.destroy();
      term.master.destroy();
    }
    // spawnhost's resize of a pair reaches the slave (node-pty's ioctl; here stty on it).
    const pair = pty.open({ cols: 90, rows: 20 });
    const size = () => {
      const got = [];
      pair.slave._handle.getWindowSize(got);
      return got;
    };
    assert.deepEqual(size(), [90, 20]);
    pair.resize(100, 30);
    for (let waited = 0; waited < 5000 && size()[0] !== 100; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(size(), [100, 30]);
    pair.destroy();
  });

  test("destroy() closes the terminal and hangs up its child: exit (0, SIGHUP)", async () => {
    for (const [name, library] of LIBRARIES) {
      const term = library.spawn(process.execPath, ["-e", "console.log('ready'); setTimeout(() => {}, 10000)"], {});
      const done = finished(term);
      await shown(term, "ready");
      term.destroy();
      assert.deepEqual((await done).exit, { exitCode: 0, signal: constants.signals.SIGHUP }, name);
      term.write("after\r"); // ignored, as node-pty ignores it
    }
  });

  test("defaults: no file starts sh, with node-pty's name, size, cwd, PWD, environment and encoding", async () => {
    const script = 'printf "%s|%s|%s|%s|%s|" "$0" "$TERM" "$PWD" "$(pwd)" "${TMUX-none}"; stty size';
    const seen = [];
    process.env.TMUX = "/tmp/tmux-0/default,1,0"; // dropped from an inherited environment
    try {
      for (const [, library] of LIBRARIES) seen.push(finished(library.spawn(undefined, ["-c", script], { cols: 0 })));
    } finally {
      delete process.env.TMUX;
    }
    const [theirs, ours] = await Promise.all(seen);
    assert.deepEqual(ours, theirs);
    assert.match(ours.out, /^sh\|[^|]+\|([^|]+)\|\1\|none\|24 80\r\n$/);
    // node-pty's own test: another encoding, and no file.
    for (const [name, library] of LIBRARIES) {
      const term = library.spawn(undefined, ["-c", 'echo "test æ!"'], { encoding: "base64" });
      const chunks = [];
      term.onData((data) => chunks.push(data));
      await new Promise((resolve) => term.onExit(resolve));
      // node-pty's own test drops the line's end: node-pty may lose the output's tail.
      assert.equal(Buffer.from(chunks.join(""), "base64").toString().replace(/\r\n?$/, ""), "test æ!", name);
    }
  });

  test("a program that cannot start, or a cwd that cannot be entered: its reason on the terminal, exit 1, nothing thrown", async () => {
    const cases = [["/bin/bogus.exe", [], {}], ["no-such-program-on-path", [], {}], ["/etc/passwd", [], {}], ["/bin/echo", [], { cwd: "/nowhere" }]];
    for (const [file, args, options] of cases) {
      const [theirs, ours] = await Promise.all(LIBRARIES.map(([, library]) => finished(library.spawn(file, args, options))));
      assert.deepEqual(ours, theirs, `${file} ${JSON.stringify(options)}`);
      assert.deepEqual(ours.exit, { exitCode: 1, signal: 0 });
    }
  });

  test("`error` comes only where someone listens for it, before the reason and the exit", async () => {
    const term = pty.spawn("/bin/bogus.exe", []);
    const events = [];
    term.on("error", (error) => events.push(`error ${error.code}`));
    term.onData((data) => events.push(`data ${data}`));
    await new Promise((resolve) => term.onExit((exit) => resolve(events.push(`exit ${exit.exitCode}`))));
    assert.deepEqual(events, ["error ENOENT", "data execvp(3) failed.: No such file or directory\r\n", "exit 1"]);
    assert.equal(term.pid, undefined, "no process was made");
  });

  test("throws where node-pty throws, with the same class and message; ignores what node-pty ignores", async () => {
    const calls = {
      "name {}": (library) => library.spawn("/bin/sh", ["-c", "exit"], { name: {} }),
      "cols 'x'": (library) => library.spawn("/bin/sh", ["-c", "exit"], { cols: "x" }),
      "cwd 5": (library) => library.spawn("/bin/sh", ["-c", "exit"], { cwd: 5 }),
      "env 'x'": (library) => library.spawn("/bin/sh", ["-c", "exit"], { env: "x" }),
      "encoding 5": (library) => library.spawn("/bin/sh", ["-c", "exit"], { encoding: 5 }),
      "encoding 'bogus'": (library) => library.spawn("/bin/sh", ["-c", "exit"], { encoding: "bogus" }),
      "args as a string": (library) => library.spawn("/bin/sh", "-c exit", {}),
    };
    for (const [label, call] of Object.entries(calls)) {
      const [theirs, ours] = LIBRARIES.map(([, library]) => outcome(() => call(library)));
      assert.notEqual(theirs, "returned", label);
      assert.deepEqual(ours, theirs, label);
    }
    for (const [name, library] of LIBRARIES) {
      const term = library.spawn("/bin/sh", ["-c", "sleep 10"], {});
      const done = finished(term);
      const ended = {
        "kill SIGBOGUS": outcome(() => term.kill("SIGBOGUS")),
        "resize 0 0": outcome(() => term.resize(0, 0)),
        "resize NaN": outcome(() => term.resize(NaN, 5)),
        "resize none": outcome(() => term.resize()),
        "write 5": outcome(() => term.write(5)).class,
      };
      const positive = { class: "Error", message: "resizing must be done using positive cols and rows", code: undefined };
      assert.deepEqual(ended, { "kill SIGBOGUS": "returned", "resize 0 0": positive, "resize NaN": positive, "resize none": positive, "write 5": "TypeError" }, name);
      term.kill("SIGKILL");
      assert.equal((await done).exit.signal, constants.signals.SIGKILL, name);
      assert.equal(outcome(() => term.kill()), "returned", `${name}: kill after the exit`);
    }
  });
});
