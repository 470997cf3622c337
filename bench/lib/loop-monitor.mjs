// Event-loop delay while a benchmark runs: the perf_hooks histogram for the
// percentiles, plus a timeline of lateness samples for the SVG chart.
import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Starts watching the event loop. stop() returns { p50, p99, max, mean } in ms from
 * monitorEventLoopDelay (resolution `resolutionMs`; its values are whole intervals
 * between timer runs, so an idle loop reads about resolutionMs, not 0) and a
 * `timeline` of [msSinceStart, lateMs] where lateMs is how late a `sampleMs` timer
 * fired (0 on an idle loop).
 */
export function startLoopMonitor({ resolutionMs = 1, sampleMs = 5 } = {}) {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const t0 = performance.now();
  const timeline = [];
  let expected = t0 + sampleMs;
  let timer;
  const tick = () => {
    const now = performance.now();
    timeline.push([now - t0, Math.max(0, now - expected)]);
    expected = now + sampleMs;
    timer = setTimeout(tick, sampleMs);
  };
  timer = setTimeout(tick, sampleMs);
  return {
    stop() {
      clearTimeout(timer);
      histogram.disable();
      const ms = (ns) => ns / 1e6;
      return {
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        mean: ms(histogram.mean),
        timeline,
      };
    },
  };
}
