// Suite "big-parent": the event-loop burst and /bin/true throughput while the
// parent holds 0, 1 and 4 GiB of live Buffers (--ballast-gib).
import { runBurst, warmUp } from "../lib/burst.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { rssBytes } from "../lib/procfs.mjs";
import { ms, num, mib } from "../lib/stats.mjs";
import { ROWS } from "./event-loop.mjs";

export const defaults = { n: 100, concurrency: 8, ballastList: [0, 1, 4] };

const NODE_ARGS = ["-e", ""];

export async function cell(way, params) {
  const { n, concurrency } = { ...defaults, ...params };
  await warmUp(way, process.execPath, NODE_ARGS);
  const nodeE = await runBurst(way, { n, concurrency, file: process.execPath, args: NODE_ARGS });
  const quiet = await runBurst(way, { n: Math.min(n, 100), concurrency, file: process.execPath, args: NODE_ARGS, monitor: false });
  nodeE.cpuPerLaunchMs = quiet.cpuPerLaunchMs;
  const binTrue = await runBurst(way, { n, concurrency: 8, file: "/bin/true", args: [] });
  return { nodeE, binTrue, nodeRss: rssBytes() };
}

export async function drive({ suite, ways, params, spawnCell }) {
  const results = {};
  for (const gib of params.ballastList) {
    results[gib] = {};
    for (const way of ways) {
      process.stderr.write(`  ${suite}: ${gib} GiB, ${way} ...\n`);
      results[gib][way] = await spawnCell(suite, way, { ...params, ballastGiB: gib }).result;
    }
  }
  return results;
}

export function report(results, ways, params) {
  const { n, concurrency, ballastList } = { ...defaults, ...params };
  const parts = [];
  for (const gib of ballastList) {
    const rows = [
      { label: "Node RSS (with ballast)", get: (r) => r.nodeRss, fmt: mib },
      ...ROWS.map((row) => ({ ...row, get: (r) => row.get(r.nodeE) })),
      {
        label: "/bin/true, 8 at a time: launches per second",
        get: (r) => r.binTrue.perSecond,
        fmt: (v) => num(v, 0),
        higherIsBetter: true,
      },
      { label: "/bin/true, 8 at a time: blocked per launch", get: (r) => r.binTrue.blockedPerLaunchMs, fmt: ms },
    ];
    parts.push(
      `### ${gib} GiB of Buffers in the parent\n\n${n} launches of \`node -e ""\`, ${concurrency} at a time, then ${n} of \`/bin/true\`, 8 at a time\n\n${comparisonTable(rows, results[gib], ways)}`,
    );
  }
  // Growth of blocked time with the parent's memory, per way.
  const small = ballastList[0];
  const growthRows = ballastList.slice(1).map((gib) => [
    `${gib} GiB vs ${small} GiB`,
    ...ways.map((w) => {
      const a = results[gib][w].nodeE.blockedPerLaunchMs;
      const b = results[small][w].nodeE.blockedPerLaunchMs;
      return `${(a / b).toFixed(2)}× (${ms(b)} → ${ms(a)})`;
    }),
  ]);
  if (growthRows.length) {
    const header = ["blocked per launch grows", ...ways];
    const line = (cells) => `| ${cells.join(" | ")} |`;
    parts.push(
      [`### Growth with the parent's memory`, "", line(header), line(header.map(() => "---")), ...growthRows.map(line)].join("\n"),
    );
  }
  return { markdown: parts.join("\n\n") };
}
