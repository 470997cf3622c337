// fork() next to child_process.fork: each case runs through child_process, an inline
// host and a helper host; the events (message, disconnect, exit, close, in order),
// the output and the child's fields must be identical, except where `hostsDiffer`
// states the difference the README documents.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { fileURLToPath } from "node:url";
import { modes, hostFor } from "./support/modes.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));
const THROWS = fileURLToPath(new URL("../fixtures/ipc-throws.mjs", import.meta.url));
const MISSING = fileURLToPath(new URL("../fixtures/no-such-module.mjs", import.meta.url));

const inspect = (value) => (typeof value === "bigint" ? `${value}n` : value instanceof Map || value instanceof Set ? [value.constructor.name, ...value] : value);

/**
 * @type {{ name: string, module?: string, args?: string[], options?: object,
 *   act?: (child: object) => void, untilExit?: boolean, hostsDiffer?: (expected: object) => object }[]}
 * act: what the parent does once it holds the child. untilExit: child_process emits no
 * `close` in this case, so its run ends at `exit` (plus a settling pause).
 */
const cases = [
  { name: "messages then exit 0", args: ["send-exit", "5", "0"] },
  { name: "messages then exit 7", args: ["send-exit", "3", "7"] },
  { name: "no message, exit at once", args: ["send-exit", "0", "0"] },
  { name: "advanced serialization, messages then exit", args: ["send-exit", "4", "0"], options: { serialization: "advanced" } },
  { name: "the child disconnects itself", args: ["disconnect"], options: { silent: true } },
  { name: "silent: true with output on both streams", args: ["print"], options: { silent: true } },
  { name: "stdio 'pipe' as a string gains the channel", args: ["print"], options: { stdio: "pipe" } },
  { name: "stdio array with ipc at index 3", args: ["print"], options: { stdio: ["ignore", "pipe", "pipe", "ipc"] } },
  { name: "execArgv reaches the child", args: ["execargv"], options: { execArgv: ["--no-deprecation"] } },
  { name: "NODE_ messages are not messages", args: ["send-internal"] },
  { name: "a module that throws at start", module: THROWS, options: { silent: true } },
  { name: "a module that does not exist", module: MISSING, options: { silent: true } },
  { name: "echo, then the child is killed", args: ["echo"], act: (child) => child.once("message", () => child.kill("SIGKILL")), send: "ping" },
  { name: "timeout kills a child that waits", args: ["echo"], options: { timeout: 300 } },
  {
    name: "the parent disconnects", args: ["await-disconnect"], options: { silent: true }, untilExit: true,
    act: (child) => child.once("message", () => child.disconnect()),
    // child_process never emits close here (nodejs/node#19433); spawnhost does.
    hostsDiffer: (expected) => ({ ...expected, events: [...expected.events, ["close", 0, null]] }),
  },
  { name: "stdio without ipc is refused", args: ["echo"], options: { stdio: ["pipe", "pipe", "pipe"] } },
  { name: "two ipc entries are refused", args: ["echo"], options: { stdio: ["pipe", "pipe", "pipe", "ipc", "ipc"] } },
];

async function outcome(start, c) {
  let child;
  try {
    child = await start();
  } catch (error) {
    return { thrown: { name: error.name, code: error.code, message: error.message } };
  }
  const events = [];
  const output = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"]) child[name]?.setEncoding("utf8").on("data", (text) => { output[name] += text; });
  child.on("message", (message) => events.push(["message", inspect(message)]));
  child.on("disconnect", () => events.push(["disconnect", child.connected]));
  child.on("exit", (code, signal) => events.push(["exit", code, signal]));
  child.on("close", (code, signal) => events.push(["close", code, signal]));
  child.on("error", (error) => events.push(["error", error.message]));
  if (c.send !== undefined) child.send(c.send);
  c.act?.(child);
  await new Promise((resolve) => child.once(c.untilExit ? "exit" : "close", resolve));
  if (c.untilExit) await new Promise((resolve) => setTimeout(resolve, 200));
  // Node's report names the module by path; stack frames inside Node are identical.
  return { events: channelEndFirst(events), ...output, connected: child.connected, exitCode: child.exitCode, signalCode: child.signalCode, spawnargs: child.spawnargs };
}

// A child that dies with its channel open: Node sees the channel's end (`disconnect`)
// and the child's exit (`exit`, then `close`) through separate events of the same
// moment, in any order from one run to the next (seen on Node 26, in
// child_process.fork itself: disconnect before exit, between exit and close, after
// close). Compared with the channel's end first.
function channelEndFirst(events) {
  const exitAt = events.findIndex(([name]) => name === "exit");
  const disconnectAt = events.findIndex(([name]) => name === "disconnect");
  if (exitAt === -1 || disconnectAt < exitAt) return events;
  const ordered = events.filter((_, i) => i !== disconnectAt);
  ordered.splice(exitAt, 0, events[disconnectAt]);
  return ordered;
}

describe("differential: child_process.fork vs ProcessHost#fork", () => {
  const hosts = modes().map((mode) => [mode, hostFor(mode, { onUnhandledChildError: () => {} })]);
  after(() => Promise.all(hosts.map(([, host]) => host.shutdown())));

  for (const c of cases) {
    test(c.name, async () => {
      const module = c.module ?? CHILD;
      const args = c.args ?? [];
      const [expected, ...actual] = await Promise.all([
        outcome(async () => childProcess.fork(module, args, { ...c.options }), c),
        ...hosts.map(([, host]) => outcome(() => host.fork(module, args, { ...c.options }), c)),
      ]);
      const wanted = c.hostsDiffer ? c.hostsDiffer(expected) : expected;
      hosts.forEach(([mode], i) => assert.deepStrictEqual(actual[i], wanted, `${mode} mode differs from child_process.fork`));
    });
  }
});
