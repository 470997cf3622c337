#!/usr/bin/env node
// One execFile at a time on an idle host (a lone launch is never delayed to
// wait for company): 500 sequential launches, 1 ms apart, after 20 warm-up launches;
// prints p50 and p99 in µs. The package is this checkout's, or --package <js dir>.
//   node bench/diag/idle-latency.mjs [--package <path to a checkout's js/>] [--file /bin/true]
import { pathToFileURL } from "node:url";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const pkg = arg("package", new URL("../../js", import.meta.url).pathname);
const file = arg("file", "/bin/true");
const { ProcessHost } = await import(pathToFileURL(`${pkg}/src/index.js`).href);
const host = new ProcessHost({ mode: "helper", fallback: "error" });
for (let i = 0; i < 20; i++) await host.execFile(file, []);
const times = [];
for (let i = 0; i < 500; i++) {
  const t0 = performance.now();
  await host.execFile(file, []);
  times.push((performance.now() - t0) * 1000);
  await new Promise((resolve) => setTimeout(resolve, 1));
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ p50: Math.round(times[250]), p99: Math.round(times[495]) }));
await host.shutdown();
