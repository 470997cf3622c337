// How long spawn() holds the calling thread, node:child_process against
// spawnhost/child_process, in a parent with live Buffers (fork's page-table copy grows
// with them; the helper's launch does not run on this thread at all).
//   node bench/drop-in.mjs [launches=40] [GiB of Buffers=1]
import * as nodeChildProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";

const launches = Number(process.argv[2] ?? 40);
const gib = Number(process.argv[3] ?? 1);
const live = Array.from({ length: gib * 16 }, () => Buffer.alloc(64 * 1024 * 1024, 1));

async function measure(api, count) {
  let blocked = 0;
  const closes = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const child = api.spawn("true", [], { stdio: "ignore" });
    blocked += performance.now() - started;
    closes.push(new Promise((resolve) => child.on("close", resolve)));
  }
  await Promise.all(closes);
  return blocked / count;
}

await measure(dropIn, 5); // starts the helper
const viaNode = await measure(nodeChildProcess, launches);
const viaHelper = await measure(dropIn, launches);
console.log(`${launches} launches of /bin/true, ${live.length * 64} MiB of live Buffers, calling-thread ms per spawn():`);
console.log(`  node:child_process       ${viaNode.toFixed(3)}`);
console.log(`  spawnhost/child_process  ${viaHelper.toFixed(3)}`);
console.log(`  stats: ${JSON.stringify(dropIn.stats())}`);
