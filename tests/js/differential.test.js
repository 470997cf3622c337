// The proof that a ProcessHost behaves like node:child_process: every case of the table
// runs through promisified child_process, an inline host and a helper host, and the
// observable results (output bytes, exit code, signal, error fields and message, event
// order) must be identical. Fields Node does not have (timedOut) are not compared.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { promisify } from "node:util";
import { cases } from "./support/differential-cases.js";
import { modes, hostFor } from "./support/modes.js";

const ERROR_FIELDS = ["message", "code", "errno", "syscall", "path", "spawnargs", "killed", "signal", "cmd", "stdout", "stderr", "cause"];

function errorFields(error) {
  const fields = Object.fromEntries(ERROR_FIELDS.filter((key) => error[key] !== undefined).map((key) => [key, error[key]]));
  if (error.name === "AbortError") fields.name = error.name;
  return fields;
}

const optionsOf = (c) => (typeof c.options === "function" ? c.options() : { ...c.options });

async function outcomeOf(start) {
  try {
    const { stdout, stderr } = await start();
    return { resolved: { stdout, stderr } };
  } catch (error) {
    return { rejected: errorFields(error) };
  }
}

async function spawnOutcome(start, c) {
  let child;
  try {
    child = await start();
  } catch (error) {
    return { thrown: errorFields(error) };
  }
  const events = [];
  const output = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"]) child[name]?.setEncoding("utf8").on("data", (text) => { output[name] += text; });
  child.on("spawn", () => events.push(["spawn"]));
  child.on("error", (error) => events.push(["error", errorFields(error)]));
  child.on("exit", (code, signal) => events.push(["exit", code, signal]));
  if (c.input !== undefined) child.stdin.end(c.input);
  if (c.kill !== undefined) events.push(["kill returned", child.kill(c.kill)]);
  const [code, signal] = await new Promise((resolve) => child.on("close", (...args) => resolve(args)));
  events.push(["close", code, signal]);
  return {
    events, ...output, hasPid: child.pid !== undefined, killed: child.killed, exitCode: child.exitCode,
    signalCode: child.signalCode, spawnfile: child.spawnfile, spawnargs: child.spawnargs,
  };
}

function viaChildProcess(c) {
  const options = optionsOf(c);
  if (c.run === "spawn") return spawnOutcome(async () => childProcess.spawn(c.file, c.args ?? [], options), c);
  return outcomeOf(async () => {
    const promise = c.run === "exec"
      ? promisify(childProcess.exec)(c.file, options)
      : promisify(childProcess.execFile)(c.file, c.args ?? [], options);
    if (c.input !== undefined) {
      promise.child.stdin.on("error", () => {});
      promise.child.stdin.end(c.input);
    }
    return promise;
  });
}

function viaHost(host, c) {
  const options = optionsOf(c);
  if (c.run === "spawn") return spawnOutcome(() => host.spawn(c.file, c.args ?? [], options), c);
  if (c.input !== undefined) options.input = c.input;
  return outcomeOf(() => (c.run === "exec" ? host.exec(c.file, options) : host.execFile(c.file, c.args ?? [], options)));
}

describe("differential: node:child_process vs ProcessHost", () => {
  const hosts = modes().map((mode) => [mode, hostFor(mode, { onUnhandledChildError: () => {} })]);
  after(() => Promise.all(hosts.map(([, host]) => host.shutdown())));

  test("the table is large enough to mean something", () => {
    assert.ok(cases.length >= 80, `only ${cases.length} cases`);
    assert.equal(new Set(cases.map((c) => c.name)).size, cases.length, "case names must be unique");
  });

  for (const c of cases) {
    test(c.name, async () => {
      const [expected, ...actual] = await Promise.all([viaChildProcess(c), ...hosts.map(([, host]) => viaHost(host, c))]);
      hosts.forEach(([mode], i) => {
        const wanted = mode === "helper" && c.helperDiffers ? c.helperDiffers(expected) : expected;
        assert.deepStrictEqual(actual[i], wanted, `${mode} mode differs from node:child_process`);
      });
    });
  }
});
