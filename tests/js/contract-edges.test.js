// Edges of node:child_process's contract that other projects' suites found, each run
// through node:child_process and the drop-in (spawnhost/child_process, through the
// helper) in the same test, and asked to come out the same:
// - a child's write to an output Node destroyed fails (EPIPE), whatever watches it;
// - a blocking call's maxBuffer kills the child as soon as the bytes are read;
// - launches made one after the other are created in that order, and say so in it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { isDeepStrictEqual } from "node:util";

const node = process.execPath;

function closed(child) {
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
}

// Helper mode only: in inline mode the drop-in is node:child_process itself.
const throughHelper = (process.env.SPAWNHOST_TEST_MODES || "inline,helper").split(",").includes("helper");

describe("contract edges: the drop-in against node:child_process", { skip: !throughHelper && "helper mode not selected" }, () => {
  // A child copying stdin to one output: its write fails with EPIPE once Node has
  // destroyed that output, and the uncaught error exits it with code 1.
  for (const output of ["stdout", "stderr"]) {
    test(`${output} destroyed at once: the child's write fails with EPIPE (exit 1), as with child_process`, async () => {
      const helperBefore = dropIn.stats().helper;
      for (const api of [childProcess, dropIn]) {
        for (let run = 0; run < 5; run++) {
          const child = api.spawn(node, ["-e", `process.stdin.pipe(process.${output})`]);
          child[output].destroy();
          child.stdin.end("foobar");
          assert.deepEqual(await closed(child), { code: 1, signal: null }, `${api === dropIn ? "drop-in" : "node:child_process"}, run ${run}`);
        }
      }
      assert.equal(dropIn.stats().helper - helperBefore, 5, "the drop-in's launches went through the helper");
    });

    // The first output came and was read; the destroy comes after it. Every later write
    // must fail, however long the child goes on.
    test(`${output} destroyed after its first output: the next write fails with EPIPE, as with child_process`, async () => {
      const script = `
        process.${output}.on("error", (e) => { require("fs").writeSync(3, e.code); process.exit(7); });
        process.${output}.write("first\\n");
        process.stdin.once("data", () => process.${output}.write("second\\n"));
        setTimeout(() => process.exit(0), 10000);`;
      for (const api of [childProcess, dropIn]) {
        const child = api.spawn(node, ["-e", script], { stdio: ["pipe", "pipe", "pipe", "pipe"] });
        let code = "";
        child.stdio[3].on("data", (chunk) => (code += chunk));
        await new Promise((resolve) => child[output].once("data", resolve));
        child[output].destroy();
        child.stdin.write("go\n");
        assert.deepEqual(await closed(child), { code: 7, signal: null }, api === dropIn ? "drop-in" : "node:child_process");
        assert.equal(code, "EPIPE");
      }
    });
  }

  // The child writes past the cap and exits at once: only a kill sent as the bytes are
  // read finds it alive. Node's outcome is the signal, and ENOBUFS. Whether the reader
  // runs before the child's exit is the scheduler's choice on a loaded machine, for
  // Node's own spawnSync too: the two faces run alternately, and the drop-in must be
  // killed as often as Node's, within a small margin (a kill sent a round trip late
  // lost most runs: status 0 in about half of them, on a quiet machine).
  const writesPastTheCap = ["-e", "process.stdout.write('.'.repeat(11))"];
  const syncCalls = {
    spawnSync: (api) => api.spawnSync(node, writesPastTheCap, { maxBuffer: 10, killSignal: "SIGINT" }),
    execFileSync: (api) => thrown(() => api.execFileSync(node, writesPastTheCap, { maxBuffer: 10, killSignal: "SIGINT", stdio: "pipe" })),
    execSync: (api) => thrown(() => api.execSync(`"${node}" -e "process.stdout.write('.'.repeat(11))"`, { maxBuffer: 10, killSignal: "SIGINT", stdio: "pipe" })),
  };
  const runs = 12;
  for (const [name, call] of Object.entries(syncCalls)) {
    test(`${name}: maxBuffer kills a child that writes past it and exits, as child_process's does`, () => {
      const helperBefore = dropIn.stats().helper;
      const killed = { node: 0, dropIn: 0 };
      const killedOutcome = { status: null, signal: "SIGINT", code: "ENOBUFS", stdout: 11 };
      for (let run = 0; run < runs; run++) {
        for (const [face, api] of [["node", childProcess], ["dropIn", dropIn]]) {
          const outcome = outcomeOf(call(api));
          assert.equal(outcome.code, "ENOBUFS", `${face}, run ${run}`);
          assert.equal(outcome.stdout, 11, `${face}, run ${run}`);
          if (isDeepStrictEqual(outcome, killedOutcome)) killed[face]++;
          else assert.deepEqual(outcome, { ...killedOutcome, status: 0, signal: null }, `${face}, run ${run}: killed, or its own exit`);
        }
      }
      assert.ok(killed.dropIn >= killed.node - 2, `killed by node:child_process in ${killed.node} of ${runs} runs, by the drop-in in ${killed.dropIn}`);
      assert.equal(dropIn.stats().helper - helperBefore, runs, "the drop-in's calls went through the helper");
    });
  }

  // Node's spawn() returns once the child exists: children asked for one after the
  // other exist in that order, and their `spawn` (or `error`) events come in it. The
  // helper creates each launch after the one asked for before it, unless that one's
  // creation has taken 50 ms (docs/decisions/launch-pool.md): a loaded machine's
  // scheduler can hold a launch thread that long (seen once at a load of 10 to 15 on 2
  // CPUs), so one round of six may come out of order. Side by side, every round did.
  const rounds = 6;
  const inOrder = (list) => list.every((value, k) => k === 0 || list[k - 1] < value);
  for (const [what, file, event] of [["spawn events", "true", "spawn"], ["error events of missing programs", "/nonexistent/program", "error"]]) {
    test(`launches made one after the other: their ${what} and pids come in the order of the calls, as with child_process`, async () => {
      const helperBefore = dropIn.stats().helper;
      const outOfOrder = { node: [], dropIn: [] };
      for (const [face, api] of [["node", childProcess], ["dropIn", dropIn]]) {
        for (let round = 0; round < rounds; round++) {
          const order = [];
          const children = await Promise.all(Array.from({ length: 6 }, (_, k) => new Promise((resolve) => {
            const child = api.spawn(file, [], { stdio: "ignore" });
            child.on(event, () => order.push(k));
            child.on("close", () => resolve(child));
          })));
          assert.equal(order.length, 6, `every ${event} event came (${face}, round ${round})`);
          const pids = children.map((child) => child.pid).filter((pid) => pid !== undefined);
          if (!inOrder(order) || !inOrder(pids)) outOfOrder[face].push({ round, order, pids });
        }
      }
      assert.deepEqual(outOfOrder.node, [], "node:child_process itself");
      assert.ok(outOfOrder.dropIn.length <= 1, `the drop-in's rounds out of order: ${JSON.stringify(outOfOrder.dropIn)}`);
      assert.equal(dropIn.stats().helper - helperBefore, rounds * 6, "the drop-in's launches went through the helper");
    });
  }
});

function thrown(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  assert.fail("the call did not throw");
}

function outcomeOf(result) {
  return { status: result.status, signal: result.signal, code: result.error?.code ?? result.code, stdout: result.stdout?.length };
}
