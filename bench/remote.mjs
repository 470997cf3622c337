#!/usr/bin/env node
// Remote launches: N × /bin/true at concurrency C on a host reached over
// ssh, three ways: spawnhost over one connection (ProcessHost with a transport),
// `ssh host /bin/true` per launch (what users do today), and ssh per launch through a
// ControlMaster (one TCP+auth, a new session per launch). Reports launches/s, Node's
// own CPU per launch (process.cpuUsage), and the CPU of the local children Node reaped
// (the ssh clients: /proc/self/stat cutime+cstime), and the ratios.
// By default the host is a throwaway sshd on 127.0.0.1 (tests/js/support/sshd.js).
//   node bench/remote.mjs [--launches 1000] [--concurrency 8]
import { execFile as execFileCallback, execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { promisify } from "node:util";
import { ProcessHost } from "spawnhost";
import { startSshd } from "../tests/js/support/sshd.js";

const execFile = promisify(execFileCallback);
const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : process.argv[at + 1];
};
const launches = Number(arg("launches", 1000));
const concurrency = Number(arg("concurrency", 8));

// Seconds of CPU used by reaped children (fields 16, 17 of /proc/self/stat, in ticks).
function childrenCpuSeconds() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

async function measure(name, launch) {
  for (let i = 0; i < 20; i++) await launch(); // warm: connection, caches
  const cpu0 = process.cpuUsage();
  const children0 = childrenCpuSeconds();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < launches) {
      next++;
      await launch();
    }
  }));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const nodeCpuMs = (cpu.user + cpu.system) / 1000 / launches;
  const childCpuMs = ((childrenCpuSeconds() - children0) * 1000) / launches;
  return { name, perSecond: launches / seconds, nodeCpuMs, childCpuMs, seconds };
}

const sshd = await startSshd();
const ssh = (...rest) => ["-F", `${sshd.dir}/ssh_config`, ...rest];
const rows = [];
try {
  const host = new ProcessHost({ transport: sshd.transport() });
  rows.push(await measure("spawnhost, one ssh connection", () => host.execFile("/bin/true")));
  await host.shutdown();

  rows.push(await measure("`ssh host /bin/true` per launch", () => execFile("ssh", ssh("-T", sshd.alias, "/bin/true"))));

  execFileSync("ssh", ssh("-o", "ControlMaster=yes", "-o", "ControlPersist=120", "-N", "-f", sshd.alias));
  try {
    rows.push(await measure("ssh per launch through a ControlMaster", () => execFile("ssh", ssh("-o", "ControlMaster=no", "-T", sshd.alias, "/bin/true"))));
  } finally {
    execFileSync("ssh", ssh("-O", "exit", sshd.alias), { stdio: "ignore" });
  }
} finally {
  await sshd.remove();
}

let commit = "unknown";
try { commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim(); } catch { /* not a checkout */ }
console.log(`- command: \`node bench/remote.mjs --launches ${launches} --concurrency ${concurrency}\` (a throwaway sshd on 127.0.0.1; ${spawnSync("ssh", ["-V"], { encoding: "utf8" }).stderr.trim()})`);
console.log(`- machine: ${cpus().length} CPUs, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${new Date().toISOString()}; code ${commit}`);
console.log(`- load average at the end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log("");
console.log("| way | launches/s | Node CPU per launch | reaped children's CPU per launch (ssh clients) | spawnhost's rate ÷ this | this Node CPU ÷ spawnhost's |");
console.log("| --- | --- | --- | --- | --- | --- |");
const [ours] = rows;
for (const r of rows) {
  console.log(`| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.nodeCpuMs.toFixed(3)} ms | ${r.childCpuMs.toFixed(2)} ms | ${(ours.perSecond / r.perSecond).toFixed(1)}× | ${(r.nodeCpuMs / ours.nodeCpuMs).toFixed(1)}× |`);
}
