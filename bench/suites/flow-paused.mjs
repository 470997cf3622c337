// flow.mjs "paused": a child writes to stdout as fast as it can while the consumer
// pauses for 5 s. With flow control the pipe fills and the child blocks; without
// it the output piles up in memory. Reports how much RSS grew during the pause.
import { rssBytes } from "../lib/procfs.mjs";
import { comparisonTable } from "../lib/report.mjs";
import { mib, ms, num } from "../lib/stats.mjs";

export const defaults = { pauseMs: 5000, readMs: 1000, growthCapGiB: 4 };

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec));

export async function cell(way, params) {
  const { pauseMs, readMs, growthCapGiB } = { ...defaults, ...params };
  const child = await way.spawn("cat", ["/dev/zero"], { stdio: ["ignore", "pipe", "ignore"] }).ready;
  const closed = new Promise((resolve) => child.once("close", resolve));
  let bytes = 0;
  child.stdout.on("data", (chunk) => (bytes += chunk.length));
  await sleep(readMs);
  const readRate = bytes / (readMs / 1000);
  child.stdout.pause();
  await sleep(200); // what was already in flight lands
  const helper = way.helperPid();
  const node0 = rssBytes();
  const helper0 = helper ? rssBytes(helper) : null;
  const bytes0 = bytes;
  let nodePeak = node0;
  let helperPeak = helper0;
  let capped = false;
  const t0 = performance.now();
  while (performance.now() - t0 < pauseMs) {
    await sleep(100);
    nodePeak = Math.max(nodePeak, rssBytes());
    if (helper) helperPeak = Math.max(helperPeak, rssBytes(helper));
    if (nodePeak - node0 > growthCapGiB * 2 ** 30) {
      capped = true; // stop before the machine runs out of memory
      break;
    }
  }
  const pausedForMs = performance.now() - t0;
  const bufferedDuringPause = child.stdout.readableLength;
  child.kill("SIGKILL");
  child.stdout.resume();
  await closed;
  return {
    readRate,
    pausedForMs,
    capped,
    nodeGrowth: nodePeak - node0,
    helperGrowth: helper ? helperPeak - helper0 : null,
    bufferedDuringPause,
    deliveredDuringPause: bytes - bytes0,
  };
}

export function report(results, ways, params) {
  const { pauseMs } = { ...defaults, ...params };
  const rows = [
    { label: "read rate before the pause", get: (r) => r.readRate / 1e6, fmt: (v) => `${num(v)} MB/s`, higherIsBetter: true },
    { label: "Node RSS growth during the pause (peak)", get: (r) => r.nodeGrowth, fmt: mib },
    { label: "helper RSS growth during the pause (peak)", get: (r) => r.helperGrowth, fmt: mib },
    { label: "bytes buffered in the paused stream at the end", get: (r) => r.bufferedDuringPause, fmt: mib },
    { label: "pause lasted", get: (r) => r.pausedForMs, fmt: ms },
  ];
  const capped = ways.filter((w) => results[w].capped);
  const note = capped.length ? `\n\n${capped.join(", ")}: stopped early because Node's RSS grew past the cap.` : "";
  return {
    markdown: `\`cat /dev/zero\` read for 1 s, then its stdout paused for ${pauseMs / 1000} s (target: Node growth < 16 MB)\n\n${comparisonTable(rows, results, ways)}${note}`,
  };
}
