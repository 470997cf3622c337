// flow.mjs "leak": 10,000 sequential launches; descriptors and RSS of Node and
// of the helper after the first 100 and at the end, and zombies left behind.
import { childrenOf, fdCount, rssBytes } from "../lib/procfs.mjs";
import { table, mib, num, ms } from "../lib/stats.mjs";
import { LABELS } from "../lib/ways.mjs";

export const defaults = { launches: 10_000, warm: 100 };

function snapshot(way) {
  const helper = way.helperPid();
  return {
    nodeFds: fdCount(),
    nodeRss: rssBytes(),
    helperFds: helper ? fdCount(helper) : null,
    helperRss: helper ? rssBytes(helper) : null,
    zombies: childrenOf(helper ?? process.pid).filter((c) => c.state === "Z").length,
  };
}

export async function cell(way, params) {
  const { launches, warm } = { ...defaults, ...params };
  const one = async () => {
    const { stdout } = await way.launch("/bin/echo", ["x"]).done;
    if (stdout !== "x\n") throw new Error(`${way.name}: unexpected output ${JSON.stringify(stdout)}`);
  };
  for (let i = 0; i < warm; i++) await one();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const first = snapshot(way);
  const t0 = performance.now();
  for (let i = warm; i < launches; i++) await one();
  const wallMs = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const last = snapshot(way);
  return { first, last, wallMs, perSecond: (launches - warm) / (wallMs / 1000) };
}

// The worker-thread host is measured here only when asked for by --ways.
export { driveWithoutWorkerHost as drive } from "../lib/ways.mjs";

export function report(results, ways, params) {
  const { launches, warm } = { ...defaults, ...params };
  const ran = ways.filter((w) => results[w]);
  const rows = [];
  for (const w of ran) {
    const { first, last } = results[w];
    const pair = (a, b, f) => `${f(a)} → ${f(b)}`;
    rows.push([
      LABELS[w] ?? w,
      pair(first.nodeFds, last.nodeFds, num),
      pair(first.nodeRss, last.nodeRss, mib),
      first.helperFds == null ? "–" : pair(first.helperFds, last.helperFds, num),
      first.helperRss == null ? "–" : pair(first.helperRss, last.helperRss, mib),
      num(last.zombies),
      `${num(results[w].perSecond)} /s (${ms(results[w].wallMs)})`,
    ]);
  }
  const header = ["", "Node fds", "Node RSS", "helper fds", "helper RSS", "zombies at the end", "sequential launches"];
  return {
    markdown: `${launches} sequential launches of \`/bin/echo x\`: after the first ${warm} → at the end\n\n${table(header, rows)}`,
  };
}
