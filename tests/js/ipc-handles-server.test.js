// A net.Server one of whose connections went to a fork keeps track of it through the
// fork, as node:child_process has it (net.Server's workers, internal/socket_list.js):
// server.close() waits for the fork to let the socket go, or for its channel to end;
// the fork's exit takes it off the server's workers. Node's code does that by
// listening on the ChildProcess it sent through, for 'disconnect' and 'exit': where
// the channel is Node's own (helper mode, Linux) those must reach it there too. Each
// case runs against child_process.fork.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor, once } from "./support/modes.js";
import { ownsForkChannels } from "../../js/src/helper/process.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-hold-socket-child.mjs", import.meta.url));

const forks = [["child_process.fork", () => childProcess.fork(CHILD)]];
if (ownsForkChannels()) forks.push(["spawnhost/child_process fork", () => dropIn.fork(CHILD)]);
for (const mode of modes()) {
  if (mode === "helper" && !ownsForkChannels()) continue; // a relayed channel refuses handles
  const host = hostFor(mode);
  after(() => host.shutdown());
  forks.push([`ProcessHost#fork (${mode})`, () => host.fork(CHILD)]);
}

// A listening server, one of whose connections the child now holds.
async function serverWithConnectionInChild(child) {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = net.connect(server.address().port, "127.0.0.1").on("error", () => {});
  const [accepted] = await once(server, "connection");
  child.send("take it", accepted);
  await once(child, "message");
  return { server, client };
}

async function closeThenDisconnect(start) {
  const child = await start();
  const { server, client } = await serverWithConnectionInChild(child);
  const events = [];
  server.close(() => events.push("server close"));
  child.on("disconnect", () => events.push("disconnect"));
  child.disconnect();
  await once(child, "exit");
  events.push("exit");
  client.destroy();
  return events;
}

async function workersAfterExit(start) {
  const child = await start();
  const { server, client } = await serverWithConnectionInChild(child);
  const during = server._workers.length;
  child.disconnect();
  await once(child, "exit");
  const afterExit = server._workers.length;
  client.destroy();
  server.close();
  return { during, afterExit };
}

const cases = {
  "server.close() of a server whose connection a fork holds completes when the fork's channel ends": closeThenDisconnect,
  "a fork's exit takes it off the workers of the server that sent it a connection": workersAfterExit,
};

// A socket sent to a fork that is not running yet: child_process writes it to its
// pipe at once, and the socket leaves its server then (detached, no longer counted
// among the server's own connections, counted through the fork). The drop-in's fork
// is sent once its channel is connected, a few microtasks after fork() (its helper
// up already), before the helper has answered that the child runs.
test("a connection sent to a fork that has not started yet leaves its server at send(), as with child_process", { timeout: 30_000 }, async () => {
  const starts = [["child_process.fork", childProcess.fork]];
  if (ownsForkChannels()) {
    // Its helper up first, so the spawn request goes out at the next microtasks.
    await new Promise((resolve) => dropIn.execFile(process.execPath, ["-e", ""], resolve));
    starts.push(["spawnhost/child_process fork", dropIn.fork]);
  }
  const results = [];
  for (const [label, fork] of starts) {
    const server = net.createServer();
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = net.connect(server.address().port, "127.0.0.1").on("error", () => {});
    const [accepted] = await once(server, "connection");
    const child = fork(CHILD);
    for (let turn = 0; turn < 10; turn++) await null; // no I/O: the child is not known to run
    child.send("take it", accepted);
    results.push([label, { detached: accepted._handle === null, ownConnections: server._connections, workers: server._workers.length }]);
    await once(child, "message");
    child.disconnect();
    await once(child, "exit");
    client.destroy();
    server.close();
  }
  for (const [label, state] of results.slice(1)) assert.deepStrictEqual(state, results[0][1], `${label} differs from child_process.fork`);
});

for (const [name, act] of Object.entries(cases)) {
  test(name, { timeout: 30_000 }, async () => {
    const [[, nodeFork], ...others] = forks;
    const expected = await act(nodeFork);
    for (const [label, start] of others) assert.deepStrictEqual(await act(start), expected, `${label} differs from child_process.fork`);
  });
}
