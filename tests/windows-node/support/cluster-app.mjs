// Run by fork-handles.test.js as `node.exe [--import spawnhost/register] cluster-app.mjs
// <rr|none>`: a node:cluster HTTP server with two workers, in the scheduling policy
// named (round-robin: the primary accepts and sends each connection to a worker; none:
// each worker is sent the listening server). Each worker first launches a child with
// piped stdio, as a worker's own code would. The primary asks over real connections and
// prints, as JSON, who answered, what each worker's child gave, and the drop-in's stats().
import cluster from "node:cluster";
import { spawn } from "node:child_process";
import { get, createServer } from "node:http";
import { Socket } from "node:net";
import { stats } from "spawnhost/child_process";

const WORKERS = 2;
const REQUESTS = 12;

if (cluster.isPrimary) {
  cluster.schedulingPolicy = process.argv[2] === "rr" ? cluster.SCHED_RR : cluster.SCHED_NONE;
  const listening = [];
  const children = {};
  let port = 0;
  cluster.on("message", (worker, message) => { children[worker.process.pid] = message.child; });
  cluster.on("listening", (worker, address) => {
    port = address.port;
    listening.push(worker.process.pid);
    if (listening.length === WORKERS) ask();
  });
  for (let i = 0; i < WORKERS; i++) cluster.fork();

  // One new connection a request (no agent), so each is scheduled on its own.
  const request = () => new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk) => { body += chunk; });
      response.on("end", () => resolve({ status: response.statusCode, body }));
    }).on("error", reject);
  });
  async function ask() {
    const answers = [];
    for (let i = 0; i < REQUESTS; i++) answers.push(await request());
    const workerPids = Object.values(cluster.workers).map((w) => w.process.pid);
    cluster.disconnect(() => {
      process.stdout.write(`${JSON.stringify({ answers, workerPids, listening, children, stats: stats() })}\n`);
    });
  }
} else {
  // Under register (the test passes it on to the workers) this is the drop-in: its
  // stdout is a net.Socket on Node's own pipe when the helper hands it over, as
  // child_process's is, and not when relayed.
  const child = spawn(process.execPath, ["-e", "process.stdout.write('from ' + process.pid)"]);
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => { out += chunk; });
  const [code] = await new Promise((resolve) => child.on("close", (...end) => resolve(end)));
  process.send({ child: { code, pid: out === `from ${child.pid}`, socket: child.stdout instanceof Socket, helper: stats().helper } });
  createServer((req, res) => res.end(`${process.pid} ${req.url}`)).listen(0, "127.0.0.1");
}
