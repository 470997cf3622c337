#!/usr/bin/env node
// Flow control and scale checks, each way side by side:
//   paused  a consumer pausing 5 s on a child writing as fast as it can: RSS growth
//   stdin   1 GiB written to `cat`, honouring 'drain': RSS growth, MB/s
//   cat     `cat` of a 1 GiB file: output throughput in MB/s
//   many    2,000 concurrent `sleep 30` children: RSS of Node and of the helper
//   leak    10,000 sequential launches: fds and RSS after 100 and at the end, zombies
// Run separately from run.mjs: node bench/flow.mjs [--suite flow-paused,...]
import { fileURLToPath } from "node:url";
import { main } from "./lib/orchestrate.mjs";

const FLOW = ["flow-paused", "flow-stdin", "flow-cat", "flow-many", "flow-leak"];

await main({
  script: "flow.mjs",
  suites: FLOW,
  defaultSuites: FLOW,
  quick: { suites: ["flow-paused", "flow-cat"], params: { fileMiB: 256 } },
  outDir: fileURLToPath(new URL("./out", import.meta.url)),
  usage: `usage: node bench/flow.mjs [options]
  --suite LIST     ${FLOW.join(",")} (default: all)
  --ways LIST      child_process,worker-host,spawnhost (default), or inline;
                   many and leak skip worker-host unless --ways names it
  --children N     many: children alive at once (default 2000)
  --launches N     leak: sequential launches (default 10000)
  --repeat R       R rounds in rotated order, medians reported (default 1)
  --out DIR        where raw JSON goes (default bench/out)`,
});
