// A few hundred short children with all three stdio piped, their
// output read in each way a consumer reads it, through each face (ProcessHost's
// HostChild in both modes, spawnhost/child_process through the helper). Every byte
// arrives, `close` comes last, and where the reader leaves no room for timing the order
// of the outputs' `end`s, `exit` and `close` is the one node:child_process gives the
// same reader in the same run. No timing asserts: each child runs alone (a sibling's
// SIGCHLD can make Node reap a child before it has read its pipes, a race in Node).
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { Writable, getDefaultHighWaterMark, pipeline } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor } from "./support/modes.js";

// Less than any pipe or socketpair holds (Linux pipes: 64 KiB; the socketpair Node
// makes: about 200 KiB of socket buffer, plus the stream's own high water mark, 16 KiB
// on Node 20 and 64 KiB from 22): what a reader that leaves stdout unread until the
// child exits may be given.
const PIPE_SAFE = 16 * 1024;
const RUNS = 12;
// Node 20 gives a child's `exit` after both outputs' `end`s when they are read as they
// come. From Node 22 on, `exit` can come between them, run to run (seen in this test on
// Node 24: stdout end, exit, stderr end), so there only the bytes and `close` last
// are compared; and the `sequential` readers, which attach to one output only after
// the other's end, lose that second output in Node itself when `exit` came first
// (flushStdio drains it), so they run on Node 20 only.
const ORDER_IS_NODES_OWN = Number(process.versions.node.split(".")[0]) === 20; // per face and reader: 12 x 12 readers x (3 faces + Node) ≈ 580 children

// Copies its stdin to stdout, then writes its argument to stderr.
const CHILD = ["sh", ["-c", 'cat; printf "%s" "$1" >&2', "sh"]];

function sink() {
  let text = "";
  const stream = new Writable({ write(chunk, encoding, callback) { text += chunk; callback(); } });
  return { stream, text: () => text };
}

async function forAwait(stream) {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

function onData(stream) {
  let text = "";
  stream.on("data", (chunk) => { text += chunk; });
  return new Promise((resolve) => stream.on("end", () => resolve(text)));
}

// Each reader returns [stdout, stderr]. `timed`: its order depends on when it reads,
// in Node too; only its bytes and `close` last are compared.
const READERS = {
  "data events": (c) => Promise.all([onData(c.stdout), onData(c.stderr)]),
  "setEncoding, then data events": (c) => {
    c.stdout.setEncoding("utf8");
    c.stderr.setEncoding("latin1");
    return Promise.all([onData(c.stdout), onData(c.stderr)]);
  },
  // stdout sits unread until stderr's end: past what Node reads ahead (a high water
  // mark), the rest stays in the pipe, and whether Node reads it before it hears the
  // exit is a race. Only shorter outputs have one order.
  // It also deadlocks, in Node too, once stdout is more than its pipe and the stream
  // hold (the child blocks writing it and never reaches stderr's end): maxInput.
  "for await, stderr to its end first, then stdout": { timedPast: getDefaultHighWaterMark(false), maxInput: PIPE_SAFE, sequential: true, read: async (c) => {
    const stderr = await forAwait(c.stderr);
    return [await forAwait(c.stdout), stderr];
  } },
  "for await, stdout to its end first, then stderr": { sequential: true, read: async (c) => {
    const stdout = await forAwait(c.stdout);
    return [stdout, await forAwait(c.stderr)];
  } },
  "for await over both at once (tinyexec)": (c) => Promise.all([forAwait(c.stdout), forAwait(c.stderr)]),
  "readable events and read()": (c) => Promise.all([c.stdout, c.stderr].map((stream) => new Promise((resolve) => {
    let text = "";
    stream.on("readable", () => {
      let chunk;
      while ((chunk = stream.read()) !== null) text += chunk;
    });
    stream.on("end", () => resolve(text));
  }))),
  "pipe() to a writable": (c) => Promise.all([c.stdout, c.stderr].map((stream) => {
    const { stream: out, text } = sink();
    stream.pipe(out);
    return new Promise((resolve) => out.on("finish", () => resolve(text())));
  })),
  "stream.pipeline to a writable": (c) => Promise.all([c.stdout, c.stderr].map((stream) => {
    const { stream: out, text } = sink();
    return new Promise((resolve, reject) => pipeline(stream, out, (error) => (error ? reject(error) : resolve(text()))));
  })),
  "paused, then read a turn later": { timed: true, read: (c) => {
    c.stdout.pause();
    c.stderr.pause();
    const both = Promise.all([onData(c.stdout), onData(c.stderr)]);
    setImmediate(() => { c.stdout.resume(); c.stderr.resume(); });
    return both;
  } },
  // Waits for exit with stdout unread: more than the pipe holds deadlocks, in Node too.
  "paused, then read after exit": { timed: true, maxInput: PIPE_SAFE, read: async (c) => {
    // A 'data' listener holds the output: flushStdio's resume after `exit` delivers it.
    c.stdout.pause();
    c.stderr.pause();
    const both = Promise.all([onData(c.stdout), onData(c.stderr)]);
    await new Promise((resolve) => c.once("exit", resolve));
    c.stdout.resume();
    c.stderr.resume();
    return both;
  } },
  "read from the start, stdin written late": { timed: true, read: async (c, input) => {
    const both = Promise.all([onData(c.stdout), onData(c.stderr)]);
    await sleep(1);
    c.stdin.end(input);
    return both;
  }, writesItself: true },
  "stderr read only after stdout's end": { timed: false, sequential: true, read: async (c) => {
    const stdout = await onData(c.stdout);
    return [stdout, await onData(c.stderr)];
  } },
};

async function runOne(child, reader, input, tag) {
  const events = [];
  child.stdout.on("end", () => events.push("stdout end"));
  child.stderr.on("end", () => events.push("stderr end"));
  child.on("exit", (code, signal) => events.push(`exit ${code} ${signal}`));
  const closed = new Promise((resolve) => child.on("close", (code, signal) => {
    events.push(`close ${code} ${signal}`);
    resolve();
  }));
  const { read, writesItself } = typeof reader === "function" ? { read: reader } : reader;
  if (!writesItself) child.stdin.end(input);
  const [stdout, stderr] = await read(child, input);
  await closed;
  return { stdout: String(stdout), stderr: String(stderr), events, tag };
}

const faces = [
  ...modes().map((mode) => {
    const host = hostFor(mode);
    return { name: `ProcessHost (${mode})`, host, spawn: (file, args) => host.spawn(file, args) };
  }),
  {
    name: "spawnhost/child_process",
    spawn: async (file, args) => {
      const child = dropIn.spawn(file, args);
      assert.equal(dropIn.stats().mode, "helper");
      return child;
    },
  },
];
after(() => Promise.all(faces.map((face) => face.host?.shutdown())));

for (const face of faces) {
  describe(`stream order under load of short children: ${face.name}`, () => {
    for (const [name, reader] of Object.entries(READERS)) {
      const timed = typeof reader === "object" && reader.timed;
      const timedPast = (typeof reader === "object" && reader.timedPast) || Infinity;
      const maxInput = (typeof reader === "object" && reader.maxInput) || Infinity;
      const ordered = timed ? "close last" : `end, exit and close in node:child_process's order${timedPast < Infinity ? " (short outputs)" : ""}`;
      const skip = typeof reader === "object" && reader.sequential && !ORDER_IS_NODES_OWN
        ? "Node itself loses the output read second on this version when exit comes first" : false;
      test(`${name}: every byte, ${ordered}`, { skip }, async () => {
        for (let run = 0; run < RUNS; run++) {
          // Sizes from empty to a few pipe reads, a different one each run.
          const input = "i".repeat(Math.min([0, 1, 100, 5000, 70000, 200000][run % 6] + run, maxInput));
          const marker = `e${run}`;
          const node = await runOne(childProcess.spawn(CHILD[0], [...CHILD[1], marker]), reader, input, "node");
          const ours = await runOne(await face.spawn(CHILD[0], [...CHILD[1], marker]), reader, input, "ours");
          for (const outcome of [node, ours]) {
            assert.equal(outcome.stdout.length, input.length, `${outcome.tag}, run ${run}: stdout`);
            assert.equal(outcome.stdout, input, `${outcome.tag}, run ${run}: stdout`);
            assert.equal(outcome.stderr, marker, `${outcome.tag}, run ${run}: stderr`);
            assert.equal(outcome.events.at(-1), "close 0 null", `${outcome.tag}, run ${run}: ${outcome.events}`);
            assert.equal(outcome.events.length, 4, `${outcome.tag}, run ${run}: ${outcome.events}`);
          }
          // Which output's end comes first is a race in Node (which pipe it reads
          // first); where `exit` falls among them is not.
          const order = (events) => events.map((event) => event.replace(/^std(out|err) /, ""));
          if (ORDER_IS_NODES_OWN && !timed && input.length < timedPast) assert.deepEqual(order(ours.events), order(node.events), `run ${run}, input of ${input.length} bytes: ${ours.events} / node: ${node.events}`);
        }
      });
    }
  });
}
