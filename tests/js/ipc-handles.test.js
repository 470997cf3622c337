// Handles across a forked child's IPC channel, both ways, as node:child_process passes
// them (docs/ipc.md): net.Server, net.Socket and dgram.Socket arrive as the same kind
// of object, a sent socket is closed in the parent once the child has it (unless
// keepOpen), and later messages wait behind a handle until it is acknowledged. In
// helper mode the channel is Node's own pipe, connected through the helper (Linux);
// each case runs against child_process.fork too. Where the helper relays the channel
// (Windows, SPAWNHOST_STREAMS=relay) a handle is refused at send(), as before.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import dgram from "node:dgram";
import net from "node:net";
import { fileURLToPath } from "node:url";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor, once } from "./support/modes.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-handle-child.mjs", import.meta.url));
// Where the helper's forks have channels of Node's own, as docs/ipc.md promises: Linux,
// Node 20 to 26, not forced to relay (stated here, not read from the code under test).
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const RELAYED = !((process.platform === "linux" || process.platform === "darwin") && NODE_MAJOR <= 26 && process.env.SPAWNHOST_STREAMS !== "relay");

const listening = (server) => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));

function read(port) {
  return new Promise((resolve, reject) => {
    let text = "";
    net.connect(port, "127.0.0.1").setEncoding("utf8").on("data", (chunk) => { text += chunk; }).on("end", () => resolve(text)).on("error", reject);
  });
}

// The forks compared: Node's own, the drop-in's, and ProcessHost's in each mode.
const forks = [["child_process.fork", (args) => childProcess.fork(CHILD, args)], ["spawnhost/child_process fork", (args) => dropIn.fork(CHILD, args)]];
const refusing = [];
for (const mode of modes()) {
  const host = hostFor(mode);
  after(() => host.shutdown());
  (mode === "helper" && RELAYED ? refusing : forks).push([`ProcessHost#fork (${mode})`, (args) => host.fork(CHILD, args)]);
}
// The drop-in's forks go through the helper too.
if (RELAYED) refusing.push(...forks.splice(1, 1));

for (const [label, start] of refusing) {
  test(`${label}: a relayed channel refuses a handle at send()`, { timeout: 30_000 }, async () => {
    const child = await start(["receive"]);
    const server = net.createServer();
    await listening(server);
    assert.throws(() => child.send("x", server), { name: "TypeError", code: "ERR_INVALID_HANDLE_TYPE", message: /cannot send handles/ });
    server.close();
    child.send("bye");
    await once(child, "exit");
  });
}

// Sends a listening server; the child answers a connection on it.
async function sendServer(child, keep) {
  const server = keep(net.createServer((socket) => socket.end("served by parent")));
  const port = await listening(server);
  const sent = await new Promise((resolve) => { child.send({ kind: "server" }, server, (error) => resolve(error)); });
  const [reply] = await once(child, "message");
  // Both processes now accept on the port; the parent stops, so the child answers.
  server.close();
  const text = await read(port);
  return { sent, reply: { ...reply, port: reply.port === port }, text };
}

// Sends a connected socket; the child writes to it and ends it; the parent's copy is
// closed once the child has it.
async function sendSocket(child, keep, options) {
  const server = keep(net.createServer());
  const port = await listening(server);
  const client = keep(net.connect(port, "127.0.0.1"));
  const [accepted] = await once(server, "connection");
  keep(accepted);
  let received = "";
  client.setEncoding("utf8").on("data", (chunk) => { received += chunk; });
  // The child ends the socket before it replies, so the end may come first: heard from now.
  const ended = once(client, "end");
  const sent = await new Promise((resolve) => { child.send({ kind: "socket" }, accepted, options, (error) => resolve(error)); });
  const [reply] = await once(child, "message");
  await ended;
  const parentCopy = accepted.destroyed ? "closed" : "open";
  return { sent, reply, received, parentCopy };
}

async function sendDgram(child, keep) {
  const socket = keep(dgram.createSocket("udp4"));
  await new Promise((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  const sent = await new Promise((resolve) => { child.send({ kind: "dgram" }, socket, (error) => resolve(error)); });
  const [reply] = await once(child, "message");
  return { sent, reply: { ...reply, port: reply.port === port } };
}

// Messages sent after a handle wait until the child acknowledged it: they arrive after it.
async function queueBehindHandle(child, keep) {
  const server = keep(net.createServer());
  await listening(server);
  const replies = [];
  const all = new Promise((resolve) => child.on("message", (reply) => { if (replies.push(reply) === 3) resolve(); }));
  const returned = [child.send({ kind: "server" }, server), child.send("plain 1"), child.send("plain 2")];
  await all;
  return { returned: returned.map((value) => typeof value), order: replies.map((reply) => reply.got?.kind ?? reply.got) };
}

// Runs one case against one fork. What the case opened (kept) is closed here, whether
// it passed or failed midway: a failure then ends at once instead of holding the file open.
async function outcome(start, act) {
  const child = await start(["receive"]);
  const opened = [];
  try {
    return await act(child, (handle) => (opened.push(handle), handle));
  } finally {
    for (const handle of opened) {
      try { handle.destroy ? handle.destroy() : handle.close(); } catch { /* already closed by the case */ }
    }
    child.send("bye");
    await once(child, "exit");
  }
}

const cases = {
  "a net.Server sent to the child arrives as a net.Server that accepts on the same port": sendServer,
  "a net.Socket sent to the child arrives as a net.Socket; the parent's copy is closed after the ACK": (child, keep) => sendSocket(child, keep),
  "a net.Socket sent with keepOpen stays open in the parent": (child, keep) => sendSocket(child, keep, { keepOpen: true }),
  "a dgram.Socket sent to the child arrives as a dgram.Socket on the same port": sendDgram,
  "messages sent after a handle arrive after it": queueBehindHandle,
};

for (const [name, act] of Object.entries(cases)) {
  test(name, { timeout: 30_000 }, async () => {
    const [[, nodeFork], ...others] = forks;
    const expected = await outcome(nodeFork, act);
    for (const [label, start] of others) assert.deepStrictEqual(await outcome(start, act), expected, `${label} differs from child_process.fork`);
  });
}

test("a net.Server the child sends arrives as a net.Server that accepts", { timeout: 30_000 }, async () => {
  const results = [];
  for (const [label, start] of forks) {
    const child = await start(["send-server"]);
    const messages = [];
    const [message, server] = await once(child, "message");
    messages.push([message.kind, server instanceof net.Server]);
    messages.push([(await once(child, "message"))[0].kind]);
    server.close(); // the child answers from now on
    const text = await read(message.port);
    child.send("bye");
    await once(child, "exit");
    results.push([label, messages, text]);
  }
  for (const [label, messages, text] of results) assert.deepStrictEqual([label, messages, text], [label, ...results[0].slice(1)]);
});
