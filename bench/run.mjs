#!/usr/bin/env node
// spawnhost benchmarks: every suite runs each way (node:child_process, the
// worker-thread host in worker-host.mjs, spawnhost's helper) in the same run, one
// fresh Node process per way, prints markdown tables and writes SVG charts to
// bench/out/. Exits non-zero if any launch fails.
import { fileURLToPath } from "node:url";
import { main } from "./lib/orchestrate.mjs";

const SUITES = ["event-loop", "throughput", "big-parent", "http", "long-lived"];
const FLOW = ["flow-paused", "flow-stdin", "flow-cat", "flow-many", "flow-leak"];

await main({
  script: "run.mjs",
  suites: [...SUITES, ...FLOW],
  defaultSuites: SUITES,
  quick: { suites: ["event-loop"], params: { n: 40 } },
  outDir: fileURLToPath(new URL("./out", import.meta.url)),
  usage: `usage: node bench/run.mjs [options]
  --quick               the short event-loop demo (40 launches of node -e "")
  --suite LIST          ${SUITES.join(",")} (default: all of them);
                        the flow suites of bench/flow.mjs are accepted too
  --ways LIST           child_process,worker-host,spawnhost (default), or inline,
                        drop-in (spawnhost/child_process), execa, execa-register (http)
  --n N                 launches per burst (event-loop 200, throughput 400)
  --concurrency C       launches in flight (default 8)
  --ballast-gib LIST    big-parent: GiB of Buffers held by the parent (default 0,1,4)
  --requests N          http: /run requests (default 400)
  --children N          long-lived: children alive at once (default 1000)
  --repeat R            R rounds in rotated order, medians reported (default 1)
  --out DIR             where charts and raw JSON go (default bench/out)`,
});
