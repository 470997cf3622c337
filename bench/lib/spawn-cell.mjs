// The orchestrator's side of lib/cell.mjs: starts a cell process and reads its
// "@@READY" and "@@RESULT" lines.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CELL = fileURLToPath(new URL("./cell.mjs", import.meta.url));

/**
 * Starts suite `suite` for way `way` in a fresh process.
 * Returns { ready: Promise<info>, result: Promise<json>, end() } where end()
 * closes the cell's stdin (suites that serve until told to stop read it).
 */
export function spawnCell(suite, way, params, { nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, CELL, suite, way, JSON.stringify(params)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let onReady, onReadyFail;
  const ready = new Promise((res, rej) => ((onReady = res), (onReadyFail = rej)));
  ready.catch(() => {});
  let buffered = "";
  let result = null;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text) => {
    buffered += text;
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith("@@READY ")) onReady(JSON.parse(line.slice(8)));
      else if (line.startsWith("@@RESULT ")) result = JSON.parse(line.slice(9));
      else if (line) process.stderr.write(`[${suite}/${way}] ${line}\n`);
    }
  });
  const finished = new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const why = `bench cell ${suite}/${way} exited with ${signal ?? `code ${code}`}`;
      onReadyFail(new Error(why));
      if (code === 0 && result) resolve(result);
      else reject(new Error(why));
    });
  });
  return { ready, result: finished, end: () => child.stdin.end(), pid: child.pid };
}
