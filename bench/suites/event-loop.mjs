// Suite "event-loop": N launches of `node -e ""`, C at a time, and what the
// calling thread went through meanwhile.
import { runBurst, warmUp } from "../lib/burst.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { rssBytes } from "../lib/procfs.mjs";
import { ms, num } from "../lib/stats.mjs";
import { lineChart } from "../lib/svg.mjs";
import { LABELS } from "../lib/ways.mjs";

export const defaults = { n: 200, concurrency: 8, ballastGiB: 0 };

const NODE_ARGS = ["-e", ""];

export async function cell(way, params) {
  const { n, concurrency } = { ...defaults, ...params };
  await warmUp(way, process.execPath, NODE_ARGS);
  const burst = await runBurst(way, { n, concurrency, file: process.execPath, args: NODE_ARGS, timeline: true });
  // CPU per launch from a second, unmonitored burst (see runBurst).
  const quiet = await runBurst(way, { n: Math.min(n, 100), concurrency, file: process.execPath, args: NODE_ARGS, monitor: false });
  return { ...burst, cpuPerLaunchMs: quiet.cpuPerLaunchMs, wakeupsPerLaunch: quiet.wakeupsPerLaunch, nodeRss: rssBytes() };
}

export const ROWS = [
  { label: "calling thread blocked in start calls, total", get: (r) => r.blockedTotalMs, fmt: ms },
  { label: "blocked per launch (mean)", get: (r) => r.blockedPerLaunchMs, fmt: ms },
  { label: "longest single block", get: (r) => r.blockedMaxMs, fmt: ms },
  { label: "event-loop delay p50", get: (r) => r.loopP50Ms, fmt: ms },
  { label: "event-loop delay p99", get: (r) => r.loopP99Ms, fmt: ms },
  { label: "event-loop delay max", get: (r) => r.loopMaxMs, fmt: ms },
  {
    label: "share of the time the loop was stalled",
    get: (r) => r.loopStalledShare,
    fmt: (v) => `${(v * 100).toFixed(1)} %`,
  },
  {
    label: "share of the time the calling thread waited for a CPU",
    get: (r) => r.runQueueShare,
    fmt: (v) => (v == null ? "–" : `${(v * 100).toFixed(1)} %`),
  },
  { label: "time to finish all", get: (r) => r.wallMs, fmt: ms },
  { label: "launches per second", get: (r) => r.perSecond, fmt: (v) => num(v, 1), higherIsBetter: true },
  { label: "calling-thread CPU per launch (separate burst without monitors)", get: (r) => r.cpuPerLaunchMs, fmt: ms },
  {
    label: "calling-thread wake-ups per launch (same burst; voluntary context switches)",
    get: (r) => r.wakeupsPerLaunch,
    fmt: (v) => (v == null ? "–" : num(v, 2)),
  },
];

export function report(results, ways, params) {
  const { n, concurrency } = { ...defaults, ...params };
  const title = `${n} launches of \`node -e ""\`, ${concurrency} at a time`;
  const markdown = `${title}\n\n${comparisonTable(ROWS, results, ways)}`;
  const svg = lineChart({
    title: `Event-loop delay during ${n} launches of node -e "", ${concurrency} at a time`,
    xLabel: "time since the first launch (s)",
    yLabel: "how late a 5 ms timer fired (ms)",
    series: ways.map((w) => ({
      name: LABELS[w] ?? w,
      points: results[w].timeline.map(([t, late]) => [t / 1000, late]),
    })),
  });
  return { markdown, charts: [{ name: "event-loop", svg }] };
}
