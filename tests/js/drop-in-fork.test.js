// fork() of spawnhost/child_process next to child_process.fork, both called the same
// way (the child is used at once, as fork()'s caller does): events in order, output,
// fields. Sends, kills and disconnects made before the helper has started the child
// must behave as with Node, whose child exists when fork() returns.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));
const THROWS = fileURLToPath(new URL("../fixtures/ipc-throws.mjs", import.meta.url));
const MISSING = fileURLToPath(new URL("../fixtures/no-such-module.mjs", import.meta.url));

const inspect = (value) => (typeof value === "bigint" ? `${value}n` : value instanceof Map || value instanceof Set ? [value.constructor.name, ...value] : value);

/** act: what the parent does right after fork() returns. */
const cases = [
  { name: "messages then exit 0", args: ["send-exit", "5", "0"] },
  { name: "messages then exit 7", args: ["send-exit", "3", "7"] },
  { name: "advanced serialization", args: ["send-exit", "4", "0"], options: { serialization: "advanced" } },
  { name: "the child disconnects itself", args: ["disconnect"], options: { silent: true } },
  { name: "silent: true with output on both streams", args: ["print"], options: { silent: true } },
  { name: "stdio array with ipc at index 3", args: ["print"], options: { stdio: ["ignore", "pipe", "pipe", "ipc"] } },
  { name: "execArgv reaches the child", args: ["execargv"], options: { execArgv: ["--no-deprecation"] } },
  { name: "NODE_ messages are not messages", args: ["send-internal"] },
  { name: "a module that throws at start", module: THROWS, options: { silent: true } },
  { name: "a module that does not exist", module: MISSING, options: { silent: true } },
  { name: "send at once, echo, then kill", args: ["echo"], act: (child) => { child.send("ping"); child.once("message", () => child.kill("SIGKILL")); } },
  { name: "several sends at once with callbacks", args: ["echo"], act: (child, events) => {
    for (const i of [1, 2, 3]) child.send({ i }, (error) => events.push(["sent", i, error]));
    let replies = 0;
    child.on("message", () => { if (++replies === 3) child.kill(); });
  } },
  { name: "kill at once", args: ["echo"], act: (child, events) => events.push(["kill returned", child.kill()]) },
  { name: "timeout kills a child that waits", args: ["echo"], options: { timeout: 300 } },
  { name: "connected at once", args: ["send-exit", "0", "0"], act: (child, events) => events.push(["connected", child.connected]) },
];

async function outcome(fork, c) {
  let child;
  try {
    child = fork(c.module ?? CHILD, c.args ?? [], { ...c.options });
  } catch (error) {
    return { thrown: { name: error.name, code: error.code, message: error.message } };
  }
  const events = [];
  const output = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"]) child[name]?.setEncoding("utf8").on("data", (text) => { output[name] += text; });
  child.on("spawn", () => events.push(["spawn"]));
  child.on("message", (message) => events.push(["message", inspect(message)]));
  child.on("disconnect", () => events.push(["disconnect", child.connected]));
  child.on("exit", (code, signal) => events.push(["exit", code, signal]));
  child.on("close", (code, signal) => events.push(["close", code, signal]));
  child.on("error", (error) => events.push(["error", error.message]));
  c.act?.(child, events);
  await new Promise((resolve) => child.once("close", resolve));
  return {
    events, ...output, connected: child.connected, exitCode: child.exitCode, signalCode: child.signalCode, killed: child.killed,
    spawnargs: child.spawnargs, isChildProcess: child instanceof childProcess.ChildProcess, stdio: child.stdio.map((s) => s !== null),
  };
}

describe("differential: child_process.fork vs spawnhost/child_process fork", () => {
  for (const c of cases) {
    test(c.name, async () => {
      const [expected, actual] = await Promise.all([outcome(childProcess.fork, c), outcome(dropIn.fork, c)]);
      assert.deepStrictEqual(actual, expected);
    });
  }
});
