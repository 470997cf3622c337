// flow.mjs "stdin": 1 GiB written to `cat` (stdout to /dev/null) in 1 MiB writes,
// waiting for 'drain' whenever write() returns false.
import { rssBytes } from "../lib/procfs.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { mib, num } from "../lib/stats.mjs";

export const defaults = { totalMiB: 1024, chunkKiB: 1024 };

export async function cell(way, params) {
  const { totalMiB, chunkKiB } = { ...defaults, ...params };
  const child = await way.spawn("cat", [], { stdio: ["pipe", "ignore", "ignore"] }).ready;
  const closed = new Promise((resolve) => child.once("close", (code, signal) => resolve({ code, signal })));
  const chunk = Buffer.alloc(chunkKiB * 1024, 0x61);
  const writes = Math.ceil((totalMiB * 1024) / chunkKiB);
  const helper = way.helperPid();
  const node0 = rssBytes();
  const helper0 = helper ? rssBytes(helper) : null;
  let nodePeak = node0;
  let helperPeak = helper0;
  const sampler = setInterval(() => {
    nodePeak = Math.max(nodePeak, rssBytes());
    if (helper) helperPeak = Math.max(helperPeak, rssBytes(helper));
  }, 50);
  let falses = 0;
  let drains = 0;
  const t0 = performance.now();
  for (let i = 0; i < writes; i++) {
    if (!child.stdin.write(chunk)) {
      falses++;
      await new Promise((resolve) => child.stdin.once("drain", resolve));
      drains++;
    }
  }
  child.stdin.end();
  const exit = await closed;
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  nodePeak = Math.max(nodePeak, rssBytes());
  if (exit.code !== 0) throw new Error(`${way.name}: cat exited with ${exit.signal ?? exit.code}`);
  return {
    mbPerSecond: (writes * chunk.length) / 1e6 / (wallMs / 1000),
    nodeGrowth: nodePeak - node0,
    helperGrowth: helper ? helperPeak - helper0 : null,
    falses,
    drains,
    writes,
  };
}

export function report(results, ways, params) {
  const { totalMiB, chunkKiB } = { ...defaults, ...params };
  const rows = [
    { label: "throughput", get: (r) => r.mbPerSecond, fmt: (v) => `${num(v)} MB/s`, higherIsBetter: true },
    { label: "Node RSS growth (peak)", get: (r) => r.nodeGrowth, fmt: mib },
    { label: "helper RSS growth (peak)", get: (r) => r.helperGrowth, fmt: mib },
    { label: "write() returned false", get: (r) => r.falses, fmt: (v) => num(v) },
    { label: "'drain' events", get: (r) => r.drains, fmt: (v) => num(v) },
  ];
  return {
    markdown: `${totalMiB} MiB written to \`cat\` in ${chunkKiB} KiB writes, honouring drain (target: Node growth < 32 MB)\n\n${comparisonTable(rows, results, ways)}`,
  };
}
