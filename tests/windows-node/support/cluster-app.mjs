// Run by fork-handles.test.js as `node.exe [--import spawnhost/register] cluster-app.mjs
// <rr|none>`: a node:cluster HTTP server with two workers, in the scheduling policy
// named (round-robin: the primary accepts and sends each connection to a worker; none:
// each worker is sent the listening server). The primary asks it over real connections
// and prints, as JSON, who answered and the drop-in's stats().
import cluster from "node:cluster";
import { get, createServer } from "node:http";
import { stats } from "spawnhost/child_process";

const WORKERS = 2;
const REQUESTS = 12;

if (cluster.isPrimary) {
  cluster.schedulingPolicy = process.argv[2] === "rr" ? cluster.SCHED_RR : cluster.SCHED_NONE;
  const listening = [];
  let port = 0;
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
      process.stdout.write(`${JSON.stringify({ answers, workerPids, listening, stats: stats() })}\n`);
    });
  }
} else {
  createServer((req, res) => res.end(`${process.pid} ${req.url}`)).listen(0, "127.0.0.1");
}
