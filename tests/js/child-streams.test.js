// A child's stdio streams as child_process gives them, in both faces (ProcessHost's
// HostChild in both modes, spawnhost/child_process through the helper): output read
// in any order arrives whole, `end` comes before `exit` for a child without
// grandchildren, destroying a stream closes the child's end of it, and the streams'
// fields are child_process's.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { getDefaultHighWaterMark } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor, once } from "./support/modes.js";

const ECHO_BOTH = ["sh", ["-c", "echo out; echo err >&2"]];

// Reads stderr to its end, then stdout, as `for await` consumers do; records the order
// of the streams' `end`s, `exit` and `close`.
async function stderrThenStdout(child) {
  const events = [];
  child.stdout.on("end", () => events.push("stdout end"));
  child.stderr.on("end", () => events.push("stderr end"));
  child.on("exit", () => events.push("exit"));
  const closed = once(child, "close").then(() => events.push("close"));
  let stderr = "";
  let stdout = "";
  for await (const chunk of child.stderr) stderr += chunk;
  for await (const chunk of child.stdout) stdout += chunk;
  await closed;
  return { stdout, stderr, events };
}

const faces = [
  ...modes().map((mode) => {
    const host = hostFor(mode);
    return { name: `ProcessHost (${mode})`, host, spawn: (file, args, options) => host.spawn(file, args, options) };
  }),
  {
    name: "spawnhost/child_process",
    spawn: async (file, args, options) => {
      const child = dropIn.spawn(file, args, options);
      // Through the helper, never node:child_process itself.
      assert.equal(dropIn.stats().mode, "helper");
      return child;
    },
  },
];
after(() => Promise.all(faces.map((face) => face.host?.shutdown())));

for (const face of faces) {
  describe(`child streams: ${face.name}`, () => {
    // Node 20 delivers both ends before exit here. From Node 22 on, Node itself may hear
    // the exit first and drain the unread stdout (flushStdio), run to run: the order is
    // compared where Node's is fixed (the stress test says the same of its readers).
    const nodeOrderFixed = Number(process.versions.node.split(".")[0]) === 20;
    test("stdout read after stderr's end is all there, its end before exit, as node:child_process", { skip: !nodeOrderFixed && "Node's own order is a race on this version" }, async () => {
      const node = await stderrThenStdout(childProcess.spawn(...ECHO_BOTH));
      for (let run = 0; run < 20; run++) {
        const ours = await stderrThenStdout(await face.spawn(...ECHO_BOTH));
        assert.deepEqual(ours, node, `run ${run}`);
      }
    });

    test("stdin.destroy() closes the child's stdin: cat reads EOF and exits", async () => {
      const child = await face.spawn("cat", [], {});
      child.stdout.resume();
      child.stdin.write("x");
      child.stdin.destroy();
      // A stdin left open would hold cat forever: give up on it long after it should have ended.
      const ended = await Promise.race([once(child, "close"), sleep(20_000, "still running 20 s later", { ref: false })]);
      child.kill("SIGKILL");
      assert.deepEqual(ended, [0, null]);
    });

    // Node's stdin writes each write() into the pipe inside the call, so destroy() then
    // drops nothing of it; here the writes may still wait for the process (the socket
    // for its descriptor, the relay for the helper), and must still reach the child.
    test("what stdin was asked to write before destroy() reaches the child, as with node:child_process", async () => {
      const cases = {
        "write, destroy": (stdin) => { stdin.write("hello"); stdin.destroy(); },
        "three writes, destroy": (stdin) => { stdin.write("h"); stdin.write(Buffer.from("el")); stdin.write("6c6f", "hex"); stdin.destroy(); },
        "end, destroy": (stdin) => { stdin.end("hello"); stdin.destroy(); },
        "write, end, destroy": (stdin) => { stdin.write("hel"); stdin.end("lo"); stdin.destroy(); },
        // What cork() held back is the one part Node drops.
        "write, cork, write, destroy": (stdin) => { stdin.write("hel"); stdin.cork(); stdin.write("lo"); stdin.destroy(); },
      };
      const received = async (child, act) => {
        let out = "";
        child.stdout.on("data", (chunk) => { out += chunk; });
        child.stdin.on("error", () => {});
        act(child.stdin);
        const [code] = await once(child, "close");
        return `${code}:${out}`;
      };
      for (const [name, act] of Object.entries(cases)) {
        const node = await received(childProcess.spawn("cat"), act);
        assert.equal(await received(await face.spawn("cat", [], {}), act), node, name);
      }
    });

    test("stdin is writable and not readable, stdout and stderr readable, as child_process's sockets", async () => {
      const node = childProcess.spawn("cat");
      const nodeClosed = once(node, "close");
      const child = await face.spawn("cat", [], {});
      // (Node's stdout and stderr also say writable: true, as the sockets they are;
      // these are Readables without write(), docs/drop-in.md.)
      const sides = (c) => [c.stdin.readable, c.stdin.writable, c.stdout.readable, c.stderr.readable];
      assert.deepEqual(sides(child), sides(node));
      assert.deepEqual(sides(child), [false, true, true, true]);
      node.stdin.end();
      child.stdin.end();
      node.stdout.resume();
      child.stdout.resume();
      await Promise.all([nodeClosed, once(child, "close")]);
    });

    test("the stdio streams' high water marks are child_process's on this Node", async () => {
      const node = childProcess.spawn("true");
      const nodeClosed = once(node, "close");
      const child = await face.spawn("true", [], {});
      const marks = (c) => [c.stdin.writableHighWaterMark, c.stdout.readableHighWaterMark, c.stderr.readableHighWaterMark];
      assert.deepEqual(marks(child), marks(node));
      assert.equal(child.stdout.readableHighWaterMark, getDefaultHighWaterMark(false));
      await Promise.all([nodeClosed, once(child, "close")]);
    });
  });
}
