// Diagnostic, not a benchmark: where the calling thread's time inside spawnhost's
// start call goes, CPU against waiting for a CPU (schedstat of the main thread,
// read before and after each call).
//   node bench/diag/start-call.mjs [true|node] [N]
import { ProcessHost } from "spawnhost";
import { openSync, readSync } from "node:fs";

const fd = openSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, "r");
const buf = Buffer.alloc(128);
const sched = () => buf.toString("latin1", 0, readSync(fd, buf, 0, 128, 0)).split(" ").map(Number);

const host = new ProcessHost({ mode: "helper", fallback: "error" });
await host.execFile("/bin/true", []);
const [file, args] = process.argv[2] === "node" ? [process.execPath, ["-e", ""]] : ["/bin/true", []];
const n = Number(process.argv[3] ?? 1000);
const concurrency = 8;

let readCost = 0;
for (let i = 0; i < 200; i++) {
  const t = performance.now();
  sched();
  readCost += performance.now() - t;
}
let next = 0;
let wall = 0;
let cpu = 0;
let waited = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next++ < n) {
      const a = sched();
      const t = performance.now();
      const done = host.execFile(file, args);
      wall += performance.now() - t;
      const b = sched();
      cpu += (b[0] - a[0]) / 1e6;
      waited += (b[1] - a[1]) / 1e6;
      await done;
    }
  }),
);
const us = (v) => `${((v / n) * 1000).toFixed(0)} µs`;
console.log(
  `${file}, ${n} launches ${concurrency} at a time; inside the start call, per launch: ` +
    `wall ${us(wall)}, CPU ${us(cpu)}, waiting for a CPU ${us(waited)} ` +
    `(the CPU and wait figures include one schedstat read, ~${((readCost / 200) * 1000).toFixed(0)} µs)`,
);
await host.shutdown();
