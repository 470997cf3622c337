// A burst of launches, `concurrency` at a time, measured on the calling thread.
// Shared by the event-loop, throughput and big-parent suites.
import { startLoopMonitor } from "./loop-monitor.mjs";
import { mainThreadCpuNs, mainThreadRunQueueNs, mainThreadWakeups } from "./procfs.mjs";
import { percentile, sum } from "./stats.mjs";

/** A few launches before measuring, so pools, workers and the helper exist. */
export async function warmUp(way, file, args, count = 4) {
  await Promise.all(Array.from({ length: count }, () => way.launch(file, args).done));
}

/**
 * Runs `n` launches of file+args to completion through `way`, `concurrency` at a
 * time. Throws (and so fails the benchmark) if any launch fails.
 */
export async function runBurst(way, { n, concurrency, file, args, timeline = false, monitor = true }) {
  const blocked = [];
  let next = 0;
  let failure = null;
  // The monitors wake the loop every 1 and 5 ms; a burst run only for its CPU
  // figure goes without them, since their cost would be charged to the launches.
  const loopMonitor = monitor ? startLoopMonitor() : null;
  if (loopMonitor) await new Promise((resolve) => setTimeout(resolve, 20)); // first samples
  const cpu0 = mainThreadCpuNs();
  const wait0 = mainThreadRunQueueNs();
  const wake0 = mainThreadWakeups();
  const t0 = performance.now();
  const lane = async () => {
    while (next < n && !failure) {
      next++;
      const { done, blockedMs } = way.launch(file, args);
      blocked.push(blockedMs);
      try {
        await done;
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
  const wallMs = performance.now() - t0;
  const cpuNs = mainThreadCpuNs() - cpu0;
  const wakeups = wake0 === null ? null : mainThreadWakeups() - wake0;
  const waitNs = wait0 === null ? null : mainThreadRunQueueNs() - wait0;
  const loop = loopMonitor?.stop();
  if (failure) {
    throw new Error(`${way.name}: launch of ${file} failed: ${failure.message}`, { cause: failure });
  }
  return {
    n,
    concurrency,
    blockedTotalMs: sum(blocked),
    blockedPerLaunchMs: sum(blocked) / n,
    blockedP50Ms: percentile(blocked, 50),
    blockedMaxMs: Math.max(...blocked),
    loopP50Ms: loop?.p50,
    loopP99Ms: loop?.p99,
    loopMaxMs: loop?.max,
    // Time-weighted view of the same thing: the histogram counts one sample per
    // stall however long it is, this sums how late every 5 ms timer fired.
    loopStalledShare: loop && sum(loop.timeline.map(([, late]) => late)) / wallMs,
    wallMs,
    perSecond: n / (wallMs / 1000),
    cpuPerLaunchMs: cpuNs / 1e6 / n,
    // The loop monitors' timers wake the thread too: read it from a burst without them.
    wakeupsPerLaunch: wakeups === null ? null : wakeups / n,
    runQueueShare: waitNs === null ? null : waitNs / 1e6 / wallMs,
    timeline: timeline ? loop?.timeline : undefined,
  };
}
