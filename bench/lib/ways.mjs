// The ways a benchmark can start processes, behind one small interface so every
// suite measures them the same way:
//   launch(file, args, options) -> { done: Promise<{stdout, stderr}>, blockedMs }
//   spawn(file, args, options)  -> { ready: Promise<child>, blockedMs }
// blockedMs is the time the calling thread spent inside the start call itself, the
// part no other callback can run during. Work the way does later on the same
// thread (decoding replies, relaying output) is not in it; it shows up in the
// event-loop delay and in the calling-thread CPU that the suites also report.
import * as cp from "node:child_process";
import { WorkerHost } from "../worker-host.mjs";
import { findHelperPid } from "./procfs.mjs";

export const ALL_WAYS = ["child_process", "worker-host", "spawnhost"];
export const KNOWN_WAYS = [...ALL_WAYS, "inline", "drop-in", "execa", "execa-register"];

export const LABELS = {
  child_process: "node:child_process",
  "worker-host": "worker-thread host",
  spawnhost: "spawnhost (helper)",
  inline: "spawnhost (inline)",
  "drop-in": "spawnhost/child_process",
  execa: "execa on node:child_process",
  "execa-register": "execa under --import spawnhost/register",
};

function childProcessWay() {
  return {
    name: "child_process",
    launch(file, args, options = {}) {
      let resolve, reject;
      const done = new Promise((res, rej) => ((resolve = res), (reject = rej)));
      const t0 = performance.now();
      cp.execFile(file, args, options, (error, stdout, stderr) =>
        error ? reject(Object.assign(error, { stdout, stderr })) : resolve({ stdout, stderr }),
      );
      return { done, blockedMs: performance.now() - t0 };
    },
    spawn(file, args, options = {}) {
      const t0 = performance.now();
      const child = cp.spawn(file, args, options);
      const blockedMs = performance.now() - t0;
      const ready = new Promise((resolve, reject) => {
        child.once("spawn", () => resolve(child));
        child.once("error", reject);
      });
      return { ready, blockedMs };
    },
    helperPid: () => null,
    async close() {},
  };
}

// execFile and spawn, each timed for how long the calling thread was inside the call.
function timedCalls(host) {
  return {
    launch(file, args, options = {}) {
      const t0 = performance.now();
      const done = host.execFile(file, args, options);
      return { done, blockedMs: performance.now() - t0 };
    },
    spawn(file, args, options = {}) {
      const t0 = performance.now();
      const ready = host.spawn(file, args, options);
      return { ready, blockedMs: performance.now() - t0 };
    },
  };
}

function workerHostWay() {
  const host = new WorkerHost({ maxPoolWorkers: 4 });
  return {
    name: "worker-host",
    host,
    ...timedCalls(host),
    helperPid: () => null,
    close: () => host.shutdown(),
  };
}

async function processHostWay(mode) {
  let ProcessHost;
  try {
    ({ ProcessHost } = await import("spawnhost"));
  } catch (error) {
    throw new Error(`cannot load the spawnhost package (run npm install at the repo root): ${error.message}`);
  }
  // fallback "error": a missing helper must fail the benchmark, not quietly
  // measure inline mode under the helper's name.
  const host = new ProcessHost(mode === "helper" ? { mode, fallback: "error" } : { mode });
  if (mode === "helper") {
    // Start the helper now and make sure it is really there: a benchmark of a
    // helper mode that quietly ran something else would be worthless.
    await host.execFile("/bin/true", []);
    if (!findHelperPid()) throw new Error("spawnhost helper mode: no spawnhost-helper child process found");
  }
  return {
    name: mode === "helper" ? "spawnhost" : "inline",
    host,
    ...timedCalls(host),
    helperPid() {
      if (mode !== "helper") return null;
      const fromHost = host.helperPid ?? host.pid;
      return typeof fromHost === "number" ? fromHost : findHelperPid();
    },
    async close() {
      // A ref'd timer keeps Node alive while shutdown() waits for the helper, and
      // the race below fails the run if shutdown never settles. (An early
      // shutdown() let an idle, unref'd helper end Node with exit code 13.)
      const keepAlive = setInterval(() => {}, 1000);
      let timer;
      try {
        await Promise.race([
          host.shutdown(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("host.shutdown() did not settle within 10 s")), 10_000);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        clearInterval(keepAlive);
      }
    },
  };
}

// The drop-in face: child_process's own API (a ChildProcess returned at once, `pid`
// not read early), launched through the shared host's helper.
async function dropInWay() {
  const dropIn = await import("spawnhost/child_process");
  const { promisify } = await import("node:util");
  const execFile = promisify(dropIn.execFile);
  await execFile("/bin/true", []);
  return {
    name: "drop-in",
    launch(file, args, options = {}) {
      const t0 = performance.now();
      const done = execFile(file, args, options);
      return { done, blockedMs: performance.now() - t0 };
    },
    spawn(file, args, options = {}) {
      const t0 = performance.now();
      const child = dropIn.spawn(file, args, options);
      const blockedMs = performance.now() - t0;
      const ready = new Promise((resolve, reject) => {
        child.once("spawn", () => resolve(child));
        child.once("error", reject);
      });
      return { ready, blockedMs };
    },
    helperPid: () => findHelperPid(),
    async close() {},
  };
}

// A library that calls node:child_process itself (execa), unchanged: plain, or with
// spawnhost/register loaded first, as `node --import spawnhost/register` would. Only
// execute-to-completion calls (the http suite's /run).
async function execaWay(register) {
  if (register) await import("spawnhost/register");
  const { execa } = await import("execa");
  return {
    name: register ? "execa-register" : "execa",
    launch(file, args, options = {}) {
      const t0 = performance.now();
      const done = execa(file, args, options).then(({ stdout, stderr }) => ({ stdout, stderr }));
      return { done, blockedMs: performance.now() - t0 };
    },
    spawn() {
      throw new TypeError("the execa ways run execute-to-completion suites only (http)");
    },
    helperPid: () => (register ? findHelperPid() : null),
    async close() {},
  };
}

/** Creates the way named `name`. */
export async function makeWay(name) {
  switch (name) {
    case "child_process":
      return childProcessWay();
    case "worker-host":
      return workerHostWay();
    case "spawnhost":
      return processHostWay("helper");
    case "inline":
      return processHostWay("inline");
    case "drop-in":
      return dropInWay();
    case "execa":
    case "execa-register":
      return execaWay(name === "execa-register");
    default:
      throw new TypeError(`unknown way ${JSON.stringify(name)}; expected one of ${KNOWN_WAYS.join(", ")}`);
  }
}

/**
 * A suite's drive() that runs each way in its own cell but skips the worker-thread
 * host unless --ways named it (suites where that host adds nothing but minutes).
 */
export async function driveWithoutWorkerHost({ suite, ways, params, spawnCell, explicitWays }) {
  const results = {};
  for (const way of ways) {
    if (way === "worker-host" && !explicitWays) continue;
    process.stderr.write(`  ${suite}: ${way} ...\n`);
    results[way] = await spawnCell(suite, way, params).result;
  }
  return results;
}
