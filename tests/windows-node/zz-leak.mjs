import { ProcessHost } from "spawnhost";
import { execFileSync } from "node:child_process";
import { normalizeSpawnRequest } from "../../js/src/core/options.js";
const env = { PATH: "C:\\windows\\system32;C:\\windows", SystemRoot: "C:\\windows" };
const fixture = process.env.SPAWNHOST_WIN_FIXTURE;
const host = new ProcessHost({ mode: "helper", fallback: "error", helperPath: process.env.SPAWNHOST_HELPER_PATH });
const once = (e, n) => new Promise((r) => e.once(n, (...a) => r(a)));
const launch = async (args, pty) => {
  const request = normalizeSpawnRequest(fixture, args, { stdio: ["pipe", "pipe", "ignore"], env }, { platform: "win32", givenAvailable: false });
  if (pty) request.pty = [80, 25];
  const { child, launched } = host._startLaunch(request);
  setImmediate(() => child._release());
  child.stdout.resume();
  const closed = once(child, "close");
  await launched;
  return { child, closed };
};
const count = () => execFileSync(process.env.PROBE, ["handles", String(host.stats().helperPid)], { env }).toString().replace(/\r?\n/g, " ");
for (const pty of (process.env.MODES ?? "true").split(",").map((m) => m === "true")) {
  await (await launch(["exit", "0"], pty)).closed;
  console.log(pty, "before", count());
  const ts = await Promise.all(Array.from({ length: 20 }, (_, i) => launch(i % 2 ? ["exit", "3"] : ["sleep", "60000"], pty)));
  console.log(pty, "during", count());
  for (const { child } of ts) child.kill();
  await Promise.all(ts.map((t) => t.closed));
  for (let i = 0; i < 1; i++) { console.log(pty, "after", i, count()); await new Promise((r) => setTimeout(r, 1000)); }
}
await host.shutdown();
