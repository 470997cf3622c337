// Suite "http": an HTTP server on 127.0.0.1 whose /run launches `git --version`
// through the way under test, and whose /health answers at once. The orchestrator
// sends a fixed number of /run requests, `concurrency` at a time, and meanwhile
// probes /health one request at a time; it reports /health latency under that load.
// Every loop here is bounded by a request count; the server stops when told.
import { createServer, Agent, request } from "node:http";
import { startLoopMonitor } from "../lib/loop-monitor.mjs";
import { mainThreadRunQueueNs } from "../lib/procfs.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { ms, num, percentile } from "../lib/stats.mjs";

export const defaults = { requests: 400, concurrency: 8, idleProbes: 50, probeGapMs: 5, command: ["git", "--version"] };

// ------------------------------------------------------------------ server (cell)

export async function cell(way, params, { ready }) {
  const { command } = { ...defaults, ...params };
  const [file, ...args] = command;
  let runs = 0;
  let runErrors = 0;
  await way.launch(file, args).done; // warm-up
  const server = createServer((req, res) => {
    if (req.url === "/health") {
      res.end("ok\n");
    } else if (req.url === "/run") {
      way.launch(file, args).done.then(
        ({ stdout }) => {
          runs++;
          res.end(stdout);
        },
        (error) => {
          runErrors++;
          res.statusCode = 500;
          res.end(`${error.message}\n`);
        },
      );
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const monitor = startLoopMonitor();
  const wait0 = mainThreadRunQueueNs();
  const t0 = performance.now();
  ready({ port: server.address().port });
  // Serve until the orchestrator closes our stdin.
  await new Promise((resolve) => {
    process.stdin.resume();
    process.stdin.on("end", resolve);
    process.stdin.on("close", resolve);
  });
  const loop = monitor.stop();
  const runQueueShare = wait0 === null ? null : (mainThreadRunQueueNs() - wait0) / 1e6 / (performance.now() - t0);
  server.closeAllConnections?.();
  server.close();
  return { runs, runErrors, loopP99Ms: loop.p99, loopMaxMs: loop.max, runQueueShare };
}

// ------------------------------------------------------------------ loader

function get(agent, port, path) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request({ host: "127.0.0.1", port, path, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - t0 }));
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec));

async function load(port, { requests, concurrency, idleProbes, probeGapMs }) {
  const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const runAgent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const idle = [];
  for (let i = 0; i < idleProbes; i++) {
    idle.push((await get(healthAgent, port, "/health")).ms);
    await sleep(probeGapMs);
  }
  let sent = 0;
  let failures = 0;
  let loadDone = false;
  const t0 = performance.now();
  const lane = async () => {
    while (sent < requests) {
      sent++;
      const { status } = await get(runAgent, port, "/run");
      if (status !== 200) failures++;
    }
  };
  const loaded = [];
  const probing = (async () => {
    // Bounded: stops with the load, and never sends more than 100,000 probes.
    while (!loadDone && loaded.length < 100_000) {
      loaded.push((await get(healthAgent, port, "/health")).ms);
      await sleep(probeGapMs);
    }
  })();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const wallMs = performance.now() - t0;
  loadDone = true;
  await probing;
  healthAgent.destroy();
  runAgent.destroy();
  return { idle, loaded, wallMs, failures };
}

export async function drive({ suite, ways, params, spawnCell }) {
  const results = {};
  for (const way of ways) {
    process.stderr.write(`  ${suite}: ${way} ...\n`);
    const cellRun = spawnCell(suite, way, params);
    const { port } = await cellRun.ready;
    let l;
    try {
      l = await load(port, params);
    } finally {
      cellRun.end();
    }
    const server = await cellRun.result;
    if (l.failures || server.runErrors) {
      throw new Error(`${way}: ${l.failures} /run requests failed (${server.runErrors} launch errors)`);
    }
    results[way] = {
      idleP50Ms: percentile(l.idle, 50),
      idleP99Ms: percentile(l.idle, 99),
      healthP50Ms: percentile(l.loaded, 50),
      healthP99Ms: percentile(l.loaded, 99),
      healthMaxMs: Math.max(...l.loaded),
      probes: l.loaded.length,
      runsPerSecond: params.requests / (l.wallMs / 1000),
      serverLoopP99Ms: server.loopP99Ms,
      serverRunQueueShare: server.runQueueShare,
    };
  }
  return results;
}

export function report(results, ways, params) {
  const { requests, concurrency, command } = { ...defaults, ...params };
  const rows = [
    { label: "/health p50, idle server", get: (r) => r.idleP50Ms, fmt: ms },
    { label: "/health p50 under /run load", get: (r) => r.healthP50Ms, fmt: ms },
    { label: "/health p99 under /run load", get: (r) => r.healthP99Ms, fmt: ms },
    { label: "/health max under /run load", get: (r) => r.healthMaxMs, fmt: ms },
    { label: "/health probes during the load", get: (r) => r.probes, fmt: (v) => num(v), higherIsBetter: true },
    { label: "/run requests per second", get: (r) => r.runsPerSecond, fmt: (v) => num(v, 1), higherIsBetter: true },
    { label: "server event-loop delay p99", get: (r) => r.serverLoopP99Ms, fmt: ms },
    {
      label: "share of the time the server thread waited for a CPU",
      get: (r) => r.serverRunQueueShare,
      fmt: (v) => (v == null ? "–" : `${(v * 100).toFixed(1)} %`),
    },
  ];
  const title = `${requests} \`/run\` requests (each launches \`${command.join(" ")}\`), ${concurrency} at a time, while \`/health\` is probed one request at a time`;
  return { markdown: `${title}\n\n${comparisonTable(rows, results, ways)}` };
}
