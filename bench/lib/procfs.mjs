// Readings from Linux /proc. Every function returns null where /proc is missing,
// so the benchmarks still run (with fewer columns) on other systems.
import { readFileSync, readdirSync } from "node:fs";

function read(path) {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Resident set size of `pid` in bytes (VmRSS), or null. */
export function rssBytes(pid = process.pid) {
  const status = read(`/proc/${pid}/status`);
  const m = status && /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : null;
}

/** Number of threads of `pid`, or null. */
export function threadCount(pid = process.pid) {
  const status = read(`/proc/${pid}/status`);
  const m = status && /^Threads:\s+(\d+)/m.exec(status);
  return m ? Number(m[1]) : null;
}

/** Open descriptors of `pid`, or null. */
export function fdCount(pid = process.pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/**
 * CPU time of the calling (main) thread in nanoseconds.
 * process.cpuUsage() counts every thread of the process, which would charge a
 * worker-thread host for its workers' CPU; the benchmarks want the event-loop
 * thread alone. /proc/<pid>/task/<pid>/schedstat gives it in ns (Linux);
 * process.threadCpuUsage (Node >= 23.9) is the portable fallback.
 */
export function mainThreadCpuNs() {
  const s = read(`/proc/${process.pid}/task/${process.pid}/schedstat`);
  if (s) return Number(s.split(" ")[0]);
  if (typeof process.threadCpuUsage === "function") {
    const u = process.threadCpuUsage();
    return (u.user + u.system) * 1000;
  }
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
}

/**
 * How often the calling (main) thread has slept and been woken: its voluntary context
 * switches (/proc/<pid>/task/<pid>/status), or null. An event loop sleeps in
 * epoll_wait when it has nothing to do, so each one is a wake-up by the kernel: a
 * reply that arrived on its own. Replies already there when the loop polls cost none.
 */
export function mainThreadWakeups() {
  const s = read(`/proc/${process.pid}/task/${process.pid}/status`);
  const m = s && /^voluntary_ctxt_switches:\s+(\d+)/m.exec(s);
  return m ? Number(m[1]) : null;
}

/**
 * Time the calling (main) thread spent runnable but waiting for a CPU, in ns
 * (schedstat's run_delay), or null. A loop that is late while this grows was
 * starved of CPU by other processes, not blocked by its own work.
 */
export function mainThreadRunQueueNs() {
  const s = read(`/proc/${process.pid}/task/${process.pid}/schedstat`);
  return s ? Number(s.split(" ")[1]) : null;
}

/** User + system CPU time of the whole process `pid` in ms (/proc/<pid>/stat), or null. */
export function processCpuMs(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}

/** Which source mainThreadCpuNs() uses, for the report. */
export function cpuSource() {
  if (read(`/proc/${process.pid}/task/${process.pid}/schedstat`)) return "schedstat (main thread)";
  if (typeof process.threadCpuUsage === "function") return "process.threadCpuUsage";
  return "process.cpuUsage (whole process)";
}

/** [{pid, comm, state}] of the direct children of `ppid`, by scanning /proc/<n>/stat. */
export function childrenOf(ppid = process.pid) {
  const out = [];
  let names;
  try {
    names = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    // comm may hold spaces and parentheses: split after the last ')'.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    if (Number(fields[1]) === ppid) out.push({ pid: Number(name), comm, state: fields[0] });
  }
  return out;
}

/** Pid of the spawnhost helper started by this process, found among its children. */
export function findHelperPid() {
  // comm is cut to 15 characters: "spawnhost-helpe".
  const kids = childrenOf(process.pid).filter((c) => c.comm.startsWith("spawnhost-hel"));
  return kids.length ? kids[0].pid : null;
}

/** Kernel, CPU count, total memory: the machine line for result tables. */
export function machineLine() {
  const kernel = (read("/proc/sys/kernel/osrelease") || "?").trim();
  const mem = read("/proc/meminfo");
  const m = mem && /^MemTotal:\s+(\d+) kB/m.exec(mem);
  const gib = m ? (Number(m[1]) / 1024 / 1024).toFixed(0) : "?";
  return { kernel, memGiB: gib };
}
