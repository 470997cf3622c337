// Checked on Node's own tests: under `--import spawnhost/register`
// every fork() (and spawn with an "ipc" entry) must go through the helper or be counted
// as a fallback with its reason. Loaded after register, this wraps the builtin's fork and
// spawn and appends one JSON line a call to $SPAWNHOST_FORK_AUDIT_LOG: what stats()
// counted during it (helper launches, fallbacks by reason), or the code it threw (Node's
// own validation: nothing launched). Used by hand, in a copy of the core suite as
// scripts/test-windows-node makes it:
//   SPAWNHOST_FORK_AUDIT_LOG='Z:\tmp\audit.log' ./run.sh --import spawnhost/register \
//     --import file:///Z:/path/to/fork-audit.mjs
// then every line without "threw" must show helper + fallback = 1.
import { appendFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { fork as dropInFork, stats } from "spawnhost/child_process";

const builtin = createRequire(import.meta.url)("node:child_process");
const log = process.env.SPAWNHOST_FORK_AUDIT_LOG;
const test = process.argv[1]?.split(/[\\/]/).pop();

function audited(name, original, applies) {
  return function (...args) {
    if (!applies(args)) return original.apply(this, args);
    const before = stats();
    let child;
    try {
      child = original.apply(this, args);
    } catch (error) {
      appendFileSync(log, `${JSON.stringify({ test, name, threw: error.code ?? error.name })}\n`);
      throw error;
    }
    const after = stats();
    const reasons = {};
    for (const [reason, count] of Object.entries(after.fallbackReasons)) {
      const added = count - (before.fallbackReasons[reason] ?? 0);
      if (added) reasons[reason] = added;
    }
    appendFileSync(log, `${JSON.stringify({ test, name, helper: after.helper - before.helper, fallback: after.fallback - before.fallback, reasons })}\n`);
    return child;
  };
}

const hasIpc = (args) => args.some((a) => a && typeof a === "object" && Array.isArray(a.stdio) && a.stdio.includes("ipc"));
// Only where register swapped the builtin's functions (its children run without the flag).
if (log && builtin.fork === dropInFork) {
  builtin.fork = audited("fork", builtin.fork, () => true);
  builtin.spawn = audited("spawn", builtin.spawn, hasIpc);
  syncBuiltinESMExports();
}
