// scratch: null-launcher execFile only
import { ProcessHost } from "spawnhost";
import { mainThreadCpuNs } from "./lib/procfs.mjs";
const N = Number(process.argv[2] ?? 20000), C = Number(process.argv[3] ?? 8), what = process.argv[4] ?? "exec";
process.env.SPAWNHOST_HELPER_NULL_LAUNCHER = "1";
const host = new ProcessHost({ fallback: "error", trackEnv: process.env.TRACK === "1" });
await host.execFile("/bin/true");
delete process.env.SPAWNHOST_HELPER_NULL_LAUNCHER;
const spawnToClose = () => host.spawn("/bin/true", [], { stdio: ["ignore", "pipe", "pipe"] }).then((child) => new Promise((resolve) => { child.stdout.resume(); child.stderr.resume(); child.on("close", resolve); }));
const start = what === "spawn" ? spawnToClose : () => host.execFile("/bin/true");
async function run(n) {
  let started = 0, inside = 0;
  const w = async () => { while (started < n) { started++; const t = process.hrtime.bigint(); const d = start(); inside += Number(process.hrtime.bigint() - t); await d; } };
  const c0 = mainThreadCpuNs(), t0 = performance.now();
  await Promise.all(Array.from({ length: C }, w));
  const s = (performance.now() - t0) / 1000;
  return `${(n / s).toFixed(0)}/s cpu ${((mainThreadCpuNs() - c0) / 1000 / n).toFixed(1)}us inside ${(inside / 1000 / n).toFixed(1)}us`;
}
await run(2000);
for (let i = 0; i < 3; i++) console.log(await run(N));
await host.shutdown();
