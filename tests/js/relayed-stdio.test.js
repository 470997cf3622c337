// Relayed streams of spawnhost's children as another child's stdio:
// where the helper relays (a worker thread's helper, SPAWNHOST_STREAMS=relay), a child's
// stdout or stderr has no descriptor to give, yet `spawn("cat", [], { stdio: [a.stdout,
// "pipe", "inherit"] })` must run as Node's does. tests/fixtures/relayed-stdio.mjs runs
// the cases with plain Node and under register both ways; what each saw must be Node's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { modes } from "./support/modes.js";

const run = promisify(execFile);
const fixture = fileURLToPath(new URL("../fixtures/relayed-stdio.mjs", import.meta.url));
const onPosix = process.platform !== "win32";

async function report(flags, env = {}, args = []) {
  const { stdout, stderr } = await run(process.execPath, [...flags, fixture, ...args], {
    env: { ...process.env, NODE_OPTIONS: "", ...env }, timeout: 60_000,
  });
  return { ...JSON.parse(stdout), stderr };
}

const nodes = onPosix ? report([]) : null;
nodes?.catch(() => {});

for (const [where, env, args] of [["SPAWNHOST_STREAMS=relay", { SPAWNHOST_STREAMS: "relay" }, []], ["a worker thread", {}, ["worker"]]]) {
  test(`${where}: relayed streams as other children's stdio run as node:child_process's do, none throws`, { skip: !onPosix || !modes().includes("helper") }, async () => {
    const [expected, { stats, stderr, ...seen }] = await Promise.all([nodes, report(["--import", "spawnhost/register"], env, args)]);
    const { stderr: nodeStderr, ...nodeSeen } = expected;
    assert.deepStrictEqual(seen, nodeSeen);
    assert.equal(nodeSeen["stdout as stdin"].out, "x");
    // Only the call with a fourth stdio entry falls back, as it would without the stream.
    assert.deepStrictEqual(stats.fallbackReasons, { "more than three stdio entries besides \"ipc\"": 1 });
    assert.equal(stderr, nodeStderr);
  });
}
