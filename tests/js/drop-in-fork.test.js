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

/** What a call threw (class, code, message), or what it returned. */
function attempt(call) {
  try {
    return ["returned", call()];
  } catch (error) {
    return ["threw", error.constructor.name, error.code, error.message];
  }
}

const circular = {};
circular.self = circular;
const BAD_SEND_OPTIONS = [null, "", "foo", 0, NaN, 1, true, [], Symbol("s"), 10n];
const BAD_MESSAGES = [undefined, Symbol(), Symbol("x"), () => {}, function named() {}, 5n];

// Sends `count` strings of 64 KiB to a child that does not read yet, recording what
// send() returned: true at first, false once the backlog passed child_process's mark.
function flood(child, events, count = 40) {
  const returned = [];
  for (let i = 0; i < count; i++) returned.push(child.send("x".repeat(64 * 1024)));
  events.push(["first send", returned[0]], ["some send said false", returned.includes(false)], ["false stays false", returned.lastIndexOf(true) < returned.indexOf(false)]);
  child.send("end");
  child.on("message", (message) => { if (message?.bytes !== undefined) child.disconnect(); });
}

/** act: what the parent does right after fork() returns. untilExit: the parent disconnects. */
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
  { name: "a message JSON cannot represent throws at once", untilExit: true, args: ["echo"], act: (child, events) => {
    events.push(attempt(() => child.send({ big: 1n })), attempt(() => child.send(circular)));
    child.disconnect();
  } },
  { name: "a message advanced serialization cannot represent throws at once", untilExit: true, args: ["echo"], options: { serialization: "advanced" }, act: (child, events) => {
    // Nothing is sent: a message that got through would race the disconnect (the echo
    // child's reply fails, exit 1, or it never arrives, exit 0), under child_process too.
    events.push(attempt(() => child.send({ f() {} })), attempt(() => child.send({ s: Symbol("x") })));
    child.disconnect();
  } },
  { name: "send() checks its message at once", untilExit: true, args: ["echo"], act: (child, events) => {
    for (const message of BAD_MESSAGES) events.push(attempt(() => child.send(message)));
    child.disconnect();
  } },
  { name: "send() checks its message once the child runs", untilExit: true, args: ["echo"], act: (child, events) => child.once("spawn", () => {
    for (const message of BAD_MESSAGES) events.push(attempt(() => child.send(message)));
    child.disconnect();
  }) },
  { name: "send() refuses options that are not an object, at once", untilExit: true, args: ["echo"], act: (child, events) => {
    for (const options of BAD_SEND_OPTIONS) events.push(attempt(() => child.send("x", null, options)));
    events.push(attempt(() => child.send("x", null, null, () => events.push(["callback called"]))));
    child.disconnect();
  } },
  { name: "send() refuses options that are not an object once the child runs, and after disconnect", untilExit: true, args: ["echo"], act: (child, events) => child.once("spawn", () => {
    for (const options of BAD_SEND_OPTIONS) events.push(attempt(() => child.send("x", undefined, options)));
    child.disconnect();
    events.push(attempt(() => child.send("x", null, 5)));
  }) },
  { name: "a callback that is not a function is ignored", untilExit: true, args: ["echo"], act: (child, events) => {
    events.push(attempt(() => child.send("a", undefined, undefined, "not a function")), attempt(() => child.send("b", null, {}, 5)));
    child.on("message", (message) => { if (message === "b") child.disconnect(); });
  } },
  { name: "a handle that is no handle is ERR_INVALID_HANDLE_TYPE; a falsy one is none", untilExit: true, args: ["echo"], act: (child, events) => {
    for (const handle of ["meow", {}, 1]) events.push(attempt(() => child.send("x", handle)));
    for (const handle of [0, false, null, ""]) events.push(attempt(() => child.send("falsy", handle)));
    let replies = 0;
    child.on("message", () => { if (++replies === 4) child.disconnect(); });
  } },
  { name: "disconnect() at once: channel null, connected false, a second one throws", untilExit: true, args: ["echo"], act: (child, events) => {
    events.push(["channel is _channel", child.channel === child._channel, typeof child.channel]);
    child.disconnect();
    events.push(["after disconnect", child.channel, child.connected], attempt(() => child.disconnect()));
  } },
  { name: "disconnect() once the child runs: channel null, a second one throws, or is an error event", untilExit: true, args: ["echo"], act: (child, events) => child.once("spawn", () => {
    child.disconnect();
    events.push(["after disconnect", child.channel, child.connected], attempt(() => child.disconnect()));
    const onError = (error) => events.push(["error event", error.code]);
    child.on("error", onError);
    events.push(attempt(() => child.disconnect()));
    child.off("error", onError);
  }) },
  { name: "the channel is null once the child disconnected", args: ["disconnect"], options: { silent: true }, act: (child, events) => {
    child.on("disconnect", () => events.push(["channel at disconnect", child.channel]));
  } },
  { name: "send() says false once 128 KiB wait, before the child exists", untilExit: true, args: ["stall", "500"], act: (child, events) => flood(child, events) },
];

const CASE_LIMIT_MS = 20_000;

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
  // After the parent's disconnect() child_process emits no `close` (nodejs/node#19433;
  // spawnhost does, docs/ipc.md): such a run ends at `exit`.
  // Bounded, so a child that never ends fails its case by name rather than hanging the file.
  const ended = await new Promise((resolve) => {
    const bound = setTimeout(() => resolve(false), CASE_LIMIT_MS);
    child.once(c.untilExit ? "exit" : "close", () => {
      clearTimeout(bound);
      resolve(true);
    });
  });
  if (!ended) {
    child.kill("SIGKILL");
    return { hung: `no ${c.untilExit ? "exit" : "close"} within ${CASE_LIMIT_MS} ms`, events };
  }
  if (c.untilExit) events.splice(events.findIndex(([event]) => event === "exit") + 1);
  return {
    events: [...events], ...output, connected: child.connected, exitCode: child.exitCode, signalCode: child.signalCode, killed: child.killed,
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
