// The main promise, asserted without a clock: in helper mode Node's threads create one
// process, the helper, and every launch is a process created by the helper's threads;
// inline mode creates them on Node's own threads (so this test can fail). strace
// records every process- and thread-creating call of Node and its descendants.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { modes } from "./support/modes.js";
import { scratchDir } from "./support/scratch.js";

const run = promisify(execFile);
const burst = fileURLToPath(new URL("../fixtures/launch-burst.mjs", import.meta.url));
const LAUNCHES = 16;

/**
 * Runs the burst under `strace -f` and returns, per process (thread group id), the
 * processes its threads created; plus Node's pid.
 */
async function creationsUnderStrace(mode) {
  const log = join(scratchDir("spawnhost-strace-"), "trace");
  const { stdout } = await run("strace", [
    "-f", "-qq", "-e", "trace=clone,clone3,fork,vfork", "-e", "signal=none", "-o", log,
    process.execPath, burst, mode, String(LAUNCHES),
  ], {
    timeout: 120_000,
    // LeakSanitizer cannot run under ptrace: a sanitized helper checks no leaks here.
    env: { ...process.env, ASAN_OPTIONS: `${process.env.ASAN_OPTIONS ?? ""}:detect_leaks=0` },
  });
  const node = Number(stdout.trim());
  // Calls interrupted by another thread's line are split: "<unfinished ...>", then
  // "<... clone resumed>"; join them per thread first.
  const open = new Map();
  const calls = [];
  for (const line of readFileSync(log, "utf8").split("\n")) {
    const match = /^(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const [, tid, text] = match;
    if (text.endsWith("<unfinished ...>")) {
      open.set(tid, text);
    } else if (text.startsWith("<...")) {
      calls.push({ tid: Number(tid), text: `${open.get(tid)} ${text}` });
      open.delete(tid);
    } else {
      calls.push({ tid: Number(tid), text });
    }
  }
  const created = [];
  for (const { tid, text } of calls) {
    const result = /= (\d+)$/.exec(text);
    if (!result) continue; // failed call ("= -1 E...") or none
    const call = /^(?:<\.\.\. )?(\w+)/.exec(text)[1];
    const thread = /CLONE_THREAD/.test(text) && (call === "clone" || call === "clone3");
    created.push({ by: tid, id: Number(result[1]), thread });
  }
  // Thread group of each thread: a new process leads its own, a new thread joins its
  // creator's. Resolved to a fixed point, since a new thread's own calls can be logged
  // before its creator's return.
  const group = new Map([[node, node]]);
  for (let changed = true; changed;) {
    changed = false;
    for (const { by, id, thread } of created) {
      if (group.has(id) || !group.has(by)) continue;
      group.set(id, thread ? group.get(by) : id);
      changed = true;
    }
  }
  const processesBy = new Map();
  for (const { by, id, thread } of created) {
    if (thread) continue;
    const owner = group.get(by);
    processesBy.set(owner, [...(processesBy.get(owner) ?? []), id]);
  }
  return { node, processesBy };
}

describe("launching happens off Node's thread", () => {
  for (const mode of modes()) {
    if (mode === "helper") {
      test(`helper: Node creates one process, the helper, whose threads create all ${LAUNCHES} children`, async () => {
        const { node, processesBy } = await creationsUnderStrace("helper");
        const byNode = processesBy.get(node) ?? [];
        assert.equal(byNode.length, 1, `Node's threads created ${byNode.length} processes: ${byNode}`);
        const [helper] = byNode;
        // A wrapper script (the arm64 run's qemu launcher) execs in place: same process.
        const byHelper = processesBy.get(helper) ?? [];
        assert.ok(byHelper.length >= LAUNCHES, `the helper's threads created ${byHelper.length} processes`);
      });
    } else {
      test(`inline: Node's threads create all ${LAUNCHES} children (what helper mode avoids)`, async () => {
        const { node, processesBy } = await creationsUnderStrace("inline");
        const byNode = processesBy.get(node) ?? [];
        assert.ok(byNode.length >= LAUNCHES, `Node's threads created ${byNode.length} processes`);
      });
    }
  }
});
