// Suite "long-lived": 1,000 sleeping children alive at once, and what they cost
// in memory in Node, in the helper and in worker threads.
import { manyChildren } from "../lib/many.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { mib, ms, num } from "../lib/stats.mjs";

// The worker-thread host holds one worker per child and starts them slowly: stop
// it before it eats the machine (24 GiB here) or the time budget of one command,
// and report how far it got.
export const defaults = { children: 1000, startConcurrency: 32, rssCapGiB: 12, startBudgetS: 240 };

/** A suite's cell(): start `children` sleeping children one way, with these defaults. */
export function manyChildrenCell(suiteDefaults) {
  return async (way, params) => {
    const { children, startConcurrency, rssCapGiB, startBudgetS } = { ...suiteDefaults, ...params };
    return manyChildren(way, {
      count: children,
      startConcurrency,
      rssCapBytes: rssCapGiB * 2 ** 30,
      startBudgetMs: startBudgetS * 1000,
    });
  };
}

export const cell = manyChildrenCell(defaults);

const grow = (r, key) => (r.during[key] ?? 0) - (r.before[key] ?? 0);

export const ROWS = [
  { label: "children started", get: (r) => r.started, fmt: (v) => num(v), higherIsBetter: true },
  { label: "of which alive when memory was read", get: (r) => r.alive, fmt: (v) => num(v), higherIsBetter: true },
  { label: "time to start them all", get: (r) => r.startMs, fmt: ms },
  { label: "calling thread blocked in start calls, total", get: (r) => r.blockedTotalMs, fmt: ms },
  { label: "Node RSS before", get: (r) => r.before.nodeRss, fmt: mib },
  { label: "Node RSS with all children alive", get: (r) => r.during.nodeRss, fmt: mib },
  { label: "helper RSS with all children alive", get: (r) => r.during.helperRss, fmt: mib },
  { label: "Node + helper RSS growth", get: (r) => grow(r, "nodeRss") + grow(r, "helperRss"), fmt: mib },
  {
    label: "memory per child (Node + helper growth ÷ children)",
    get: (r) => (grow(r, "nodeRss") + grow(r, "helperRss")) / r.started,
    fmt: (v) => `${(v / 1024).toFixed(1)} KiB`,
  },
  { label: "Node threads with all children alive", get: (r) => r.during.nodeThreads, fmt: (v) => num(v) },
  { label: "time to kill all and see them close", get: (r) => r.killMs, fmt: ms },
  { label: "Node RSS after they closed", get: (r) => r.after.nodeRss, fmt: mib },
];

export function report(results, ways, params) {
  const { children, startConcurrency } = { ...defaults, ...params };
  const note = ways
    .filter((w) => results[w].cappedAt !== null)
    .map(
      (w) =>
        `\n\n${w} stopped starting new children after ${results[w].cappedAt} because ${results[w].capReason}; ` +
        `with the starts already in flight, ${results[w].started} were started.`,
    )
    .join("");
  const title = `${children} \`sleep 900\` children with piped stdio, ${startConcurrency} start calls in flight, then SIGKILL to all`;
  return { markdown: `${title}\n\n${comparisonTable(ROWS, results, ways)}${note}` };
}
