// flow.mjs "many": 2,000 concurrent sleeping children with piped stdio.
// The worker-thread host is left out unless asked for by --ways: one worker per
// child (about 9 MiB each, see the long-lived suite) would need ~17 GiB.
import { comparisonTable } from "../lib/report.mjs";
import { ROWS, manyChildrenCell } from "./long-lived.mjs";

export const defaults = { children: 2000, startConcurrency: 32, rssCapGiB: 12, startBudgetS: 240 };

export const cell = manyChildrenCell(defaults);

// The worker-thread host is measured here only when asked for by --ways.
export { driveWithoutWorkerHost as drive } from "../lib/ways.mjs";

export function report(results, ways, params) {
  const { children } = { ...defaults, ...params };
  const ran = ways.filter((w) => results[w]);
  return {
    markdown: `${children} \`sleep 900\` children with piped stdio alive at once (target: helper RSS < 64 MB, Node growth < 64 MB)\n\n${comparisonTable(ROWS, results, ran)}`,
  };
}
