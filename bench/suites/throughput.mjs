// Suite "throughput": launches of /bin/true per second at several concurrencies.
import { runBurst, warmUp } from "../lib/burst.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { ms, num } from "../lib/stats.mjs";

export const defaults = { n: 400, levels: [1, 8, 64] };

export async function cell(way, params) {
  const { n, levels } = { ...defaults, ...params };
  await warmUp(way, "/bin/true", [], 8);
  const out = {};
  for (const concurrency of levels) {
    out[concurrency] = await runBurst(way, { n, concurrency, file: "/bin/true", args: [] });
  }
  return out;
}

export function report(results, ways, params) {
  const { n, levels } = { ...defaults, ...params };
  const rows = levels.flatMap((c) => [
    { label: `concurrency ${c}: launches per second`, get: (r) => r[c].perSecond, fmt: (v) => num(v, 0), higherIsBetter: true },
    { label: `concurrency ${c}: blocked per launch`, get: (r) => r[c].blockedPerLaunchMs, fmt: ms },
    { label: `concurrency ${c}: event-loop delay p99`, get: (r) => r[c].loopP99Ms, fmt: ms },
  ]);
  return { markdown: `${n} launches of \`/bin/true\` at each concurrency\n\n${comparisonTable(rows, results, ways)}` };
}
