// The drop-in face against node:child_process, case by case: every case of the shared
// differential table runs through `node:child_process` and `spawnhost/child_process`
// (spawn with its events, execFile/exec with their callbacks, their promisified forms)
// and the observable results must be identical: output, exit code, signal, the error's
// class, fields and message, event order, the child's fields. Then the sync functions
// and invalid calls (the same error thrown, synchronously).
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { promisify } from "node:util";
import * as dropIn from "spawnhost/child_process";
import { cases } from "./support/differential-cases.js";
import { syncCases, invalidCalls } from "./support/drop-in-cases.js";

const ERROR_FIELDS = ["message", "code", "errno", "syscall", "path", "spawnargs", "killed", "signal", "cmd", "stdout", "stderr", "cause",
  "status", "output", "pid"];

// Launches Node's spawn() refuses synchronously and the helper can only report once it
// tried (docs/drop-in.md, "Differences"): the drop-in reports them as an `error` event
// (or the callback's error) carrying the same code and syscall.
const THROWN_BY_NODE_ONLY = new Set([
  "a cwd that is a file", "arguments past ARG_MAX fail with E2BIG", "uid 0 without privilege fails with EPERM",
  "spawn: a cwd that is a file throws",
]);

// Where execFile stops reading at maxBuffer and kills the child, the child has often
// already exited on its own (its output fits in the pipe). How the child ended is a
// race, in Node too; the error, output and `killed` are not.
const ENDING_IS_A_RACE = new Set(["maxBuffer exceeded on stdout", "maxBuffer exceeded on stderr", "maxBuffer 0 with output", "maxBuffer with buffer encoding"]);

function withoutEnding(outcome) {
  const { exitCode, signalCode, ...rest } = outcome;
  return { ...rest, events: rest.events?.map(([event, ...args]) => (event === "exit" || event === "close" ? [event] : [event, ...args])) };
}

function errorFields(error) {
  const fields = Object.fromEntries(ERROR_FIELDS.filter((key) => error[key] !== undefined).map((key) => [key, error[key]]));
  fields.class = error.constructor.name;
  if (fields.pid !== undefined) fields.pid = typeof fields.pid;
  return fields;
}

const optionsOf = (c) => (typeof c.options === "function" ? c.options() : { ...c.options });

function childFields(child) {
  return {
    hasPid: typeof child.pid === "number", killed: child.killed, exitCode: child.exitCode, signalCode: child.signalCode,
    spawnfile: child.spawnfile, spawnargs: child.spawnargs, isChildProcess: child instanceof childProcess.ChildProcess,
  };
}

function watch(child, events) {
  child.on("spawn", () => events.push(["spawn"]));
  child.on("error", (error) => events.push(["error", errorFields(error)]));
  child.on("exit", (code, signal) => events.push(["exit", code, signal]));
}

/** spawn: the child comes back at once; record its events, output and fields. */
async function spawnOutcome(api, c) {
  let child;
  try {
    child = api.spawn(c.file, c.args ?? [], optionsOf(c));
  } catch (error) {
    return { thrown: errorFields(error) };
  }
  const events = [];
  const output = { stdout: "", stderr: "" };
  const streams = ["stdin", "stdout", "stderr"].map((name) => child[name] !== null);
  for (const name of ["stdout", "stderr"]) child[name]?.setEncoding("utf8").on("data", (text) => { output[name] += text; });
  watch(child, events);
  if (c.input !== undefined) child.stdin.end(c.input);
  if (c.kill !== undefined) events.push(["kill returned", child.kill(c.kill)]);
  const [code, signal] = await new Promise((resolve) => child.on("close", (...args) => resolve(args)));
  events.push(["close", code, signal]);
  return { events, ...output, streams, ...childFields(child) };
}

/** execFile/exec with a callback: what it got, and where it ran among the events. */
async function callbackOutcome(api, c) {
  const events = [];
  let child;
  const called = new Promise((resolve) => {
    try {
      const done = (error, stdout, stderr) => {
        events.push(["callback"]);
        resolve({ error: error && errorFields(error), stdout, stderr });
      };
      child = c.run === "exec" ? api.exec(c.file, optionsOf(c), done) : api.execFile(c.file, c.args ?? [], optionsOf(c), done);
    } catch (error) {
      resolve({ thrown: errorFields(error) });
    }
  });
  if (!child) return called;
  watch(child, events);
  if (c.input !== undefined) {
    child.stdin.on("error", () => {});
    child.stdin.end(c.input);
  }
  const closed = new Promise((resolve) => child.on("close", (...args) => resolve(args)));
  const result = await called;
  events.push(["close", ...(await closed)]);
  return { ...result, events, ...childFields(child) };
}

async function promisifiedOutcome(api, c) {
  try {
    const promise = c.run === "exec" ? promisify(api.exec)(c.file, optionsOf(c)) : promisify(api.execFile)(c.file, c.args ?? [], optionsOf(c));
    if (c.input !== undefined) {
      promise.child.stdin.on("error", () => {});
      promise.child.stdin.end(c.input);
    }
    return { resolved: await promise, childIsChildProcess: promise.child instanceof childProcess.ChildProcess };
  } catch (error) {
    return { rejected: errorFields(error) };
  }
}

function assertThrownByNodeOnly(expected, actual) {
  const thrown = expected.thrown;
  assert.ok(thrown, "node:child_process was expected to throw for this case");
  const reported = actual.error ?? actual.rejected ?? actual.events?.find(([event]) => event === "error")?.[1];
  assert.ok(reported, "the drop-in must report the failure");
  assert.deepEqual([reported.code, reported.syscall, reported.class], [thrown.code, thrown.syscall, thrown.class]);
}

describe("differential: node:child_process vs spawnhost/child_process", () => {
  after(() => assert.ok(dropIn.stats().helper > 0, "nothing went through the helper"));

  test("the drop-in runs through the helper here", () => {
    assert.equal(dropIn.stats().mode !== "inline", true);
  });

  for (const c of cases) {
    const form = c.run === "spawn" ? spawnOutcome : callbackOutcome;
    test(c.name, async () => {
      const [expected, actual] = await Promise.all([form(childProcess, c), form(dropIn, c)]);
      if (THROWN_BY_NODE_ONLY.has(c.name)) return assertThrownByNodeOnly(expected, actual);
      if (ENDING_IS_A_RACE.has(c.name)) return assert.deepStrictEqual(withoutEnding(actual), withoutEnding(expected));
      assert.deepStrictEqual(actual, expected);
    });
    if (c.run !== "spawn") {
      test(`${c.name} (util.promisify)`, async () => {
        const [expected, actual] = await Promise.all([promisifiedOutcome(childProcess, c), promisifiedOutcome(dropIn, c)]);
        if (THROWN_BY_NODE_ONLY.has(c.name)) {
          assert.ok(expected.rejected && actual.rejected);
          return assert.deepEqual([actual.rejected.code, actual.rejected.syscall], [expected.rejected.code, expected.rejected.syscall]);
        }
        assert.deepStrictEqual(actual, expected);
      });
    }
  }
});

describe("differential: the sync functions", () => {
  for (const c of syncCases) {
    test(c.name, () => {
      const outcome = (api) => {
        try {
          const value = api[c.run](...c.args());
          return { returned: value && typeof value === "object" && !Buffer.isBuffer(value) ? { ...value, pid: typeof value.pid, error: value.error && errorFields(value.error) } : value };
        } catch (error) {
          return { thrown: errorFields(error) };
        }
      };
      assert.deepStrictEqual(outcome(dropIn), outcome(childProcess));
    });
  }
});

describe("differential: invalid calls throw Node's error, synchronously", () => {
  for (const [name, run, args] of invalidCalls) {
    test(name, () => {
      const thrown = (api) => {
        try {
          // kill: on a live child of each API, which then ends.
          const result = run === "kill" ? killWith(api, args()) : api[run](...args());
          result?.kill?.();
          return { thrown: null };
        } catch (error) {
          return { thrown: { class: error.constructor.name, code: error.code, message: error.message } };
        }
      };
      const expected = thrown(childProcess);
      assert.ok(expected.thrown, "the table holds calls node:child_process rejects");
      assert.deepStrictEqual(thrown(dropIn), expected);
    });
  }
});

function killWith(api, args) {
  const child = api.spawn("sleep", ["5"]);
  try {
    return child.kill(...args);
  } finally {
    child.kill("SIGKILL");
  }
}
