// Handles over fork channels on Windows Node, under `--import spawnhost/register`: the
// helper relays fork channels there and cannot carry handles, so the drop-in's forks go to
// node:child_process, counted with their reason (docs/drop-in.md). These run real
// programs plain and under register, and ask that they give the same: a node:cluster HTTP
// server with two workers answering real requests, and a net.Server and a net.Socket
// sent to a forked child.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { test } from "node:test";
import { runNode } from "./support/win.js";

const REASON = "a fork channel on Windows: the helper relays it, and it cannot carry handles";
const app = (name) => join(import.meta.dirname, "support", name);
const register = ["--import", "spawnhost/register"];

/** Runs `args` with this node.exe (`env` added to this one's) and parses the JSON line it prints. */
async function report(args, env = {}) {
  const { code, signal, stdout, stderr } = await runNode(args, { timeout: 120_000, env: { ...process.env, ...env } });
  assert.equal(code, 0, `${args.join(" ")}: exit ${code} ${signal}\n${stderr}\n${stdout}`);
  return JSON.parse(stdout);
}

/** The counts of the drop-in's launches, as the test expects them after one app. */
const forkFallbacks = (stats) => ({ fallback: stats.fallback, reason: stats.fallbackReasons[REASON] ?? 0, helper: stats.helper });

for (const policy of ["rr", "none"]) {
  test(`node:cluster (${policy === "rr" ? "round-robin" : "SCHED_NONE, the default on Windows"}): two workers answer HTTP requests under register, forked by the counted fallback`, { timeout: 300_000 }, async () => {
    for (const [how, args] of [["plain", []], ["register", register]]) {
      // The workers under register too (SPAWNHOST_REGISTER_CHILDREN, docs/drop-in.md), so
      // that a worker's own launch is the drop-in's.
      const { answers, workerPids, listening, children, stats } = await report([...args, app("cluster-app.mjs"), policy],
        how === "register" ? { SPAWNHOST_REGISTER_CHILDREN: "1" } : {});
      assert.equal(workerPids.length, 2, how);
      // A worker's own launch: through the helper under register, its stdout on Node's own
      // pipe as child_process's is, not relayed.
      const child = { code: 0, pid: true, socket: true, helper: how === "register" ? 1 : 0 };
      assert.deepEqual(children, Object.fromEntries(workerPids.map((pid) => [pid, child])), `${how}: each worker's child`);
      assert.deepEqual([...listening].sort(), [...workerPids].sort(), how);
      assert.equal(answers.length, 12, how);
      for (const { status, body } of answers) {
        assert.equal(status, 200, how);
        const [pid, url] = body.split(" ");
        assert.ok(workerPids.includes(Number(pid)), `${how}: answered by ${pid}, not one of the workers ${workerPids}`);
        assert.equal(url, "/", how);
      }
      const answering = new Set(answers.map(({ body }) => Number(body.split(" ")[0])));
      // Round-robin: the primary deals connections to the workers in turn. With
      // SCHED_NONE the system picks the worker that accepts, which may be one alone.
      if (policy === "rr") assert.equal(answering.size, 2, `${how}: only ${[...answering]} answered`);
      const expected = how === "register" ? { fallback: 2, reason: 2, helper: 0 } : { fallback: 0, reason: 0, helper: 0 };
      assert.deepEqual(forkFallbacks(stats), expected, `${how}: ${JSON.stringify(stats.fallbackReasons)}`);
    }
  });
}

test("a net.Server and a net.Socket sent to a forked child reach it under register, as with plain node:child_process", { timeout: 300_000 }, async () => {
  const plain = await report([app("handles-app.mjs")]);
  const ours = await report([...register, app("handles-app.mjs")]);
  const { stats: plainStats, ...plainRest } = plain;
  const { stats: ourStats, ...ourRest } = ours;
  assert.deepEqual(plainRest, {
    ready: "ready",
    serverSent: null,
    serverTaken: "server: Server, listening true",
    viaServer: "<child> accepted on the server it was sent",
    socketSent: null,
    viaSocket: "<child> wrote on the socket it was sent",
    socketTaken: "socket: Socket",
    exit: { code: 0, signal: null },
  });
  assert.deepEqual(ourRest, plainRest);
  assert.deepEqual(forkFallbacks(plainStats), { fallback: 0, reason: 0, helper: 0 });
  assert.deepEqual(forkFallbacks(ourStats), { fallback: 1, reason: 1, helper: 0 });
});
