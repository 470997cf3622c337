// Run by fork-handles.test.js as `node.exe [--import spawnhost/register] handles-app.mjs`:
// forks handles-child.cjs with node:child_process (the drop-in's, under register), sends
// it a listening net.Server and then an accepted net.Socket, connects to each, and prints,
// as JSON, what the connections read and the drop-in's stats().
import { fork } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { stats } from "spawnhost/child_process";

const child = fork(fileURLToPath(new URL("./handles-child.cjs", import.meta.url)));
const replies = [];
child.on("message", (m) => replies.push(m));
const next = async () => {
  while (replies.length === 0) await once(child, "message");
  return replies.shift();
};
const read = (port) => new Promise((resolve, reject) => {
  let text = "";
  connect(port, "127.0.0.1").setEncoding("utf8").on("data", (d) => { text += d; }).on("end", () => resolve(text)).on("error", reject);
});
// The child's pid, as the child reads it, stands as "<child>" so runs compare.
const own = (text) => text.replaceAll(String(child.pid), "<child>");
const report = { ready: await next() };

// A server: once the child holds it, ours closes, so only the child can accept.
const server = createServer(() => { report.parentAccepted = true; });
await once(server.listen(0, "127.0.0.1"), "listening");
const { port: serverPort } = server.address();
report.serverSent = await new Promise((resolve) => child.send("server", server, (e) => resolve(e?.code ?? null)));
report.serverTaken = await next();
server.close();
report.viaServer = own(await read(serverPort));

// A socket: accepted here, sent on at once; the child answers on it and ends it.
const front = createServer((socket) => {
  child.send("socket", socket, (e) => { report.socketSent = e?.code ?? null; });
});
await once(front.listen(0, "127.0.0.1"), "listening");
report.viaSocket = own(await read(front.address().port));
report.socketTaken = await next();
front.close();

child.send("bye");
const [code, signal] = await once(child, "exit");
report.exit = { code, signal };
report.stats = stats();
process.stdout.write(`${JSON.stringify(report)}\n`);
