// One measured process of bench/startup.mjs: loads a face of spawnhost (or none), makes
// zero or one execFile("/bin/true") through it, and prints what it cost as JSON when it
// exits: this process's CPU since it started (every thread, --import included), its
// peak RSS, and the parts (module load, the first launch).
//   node [--import spawnhost/register] bench/startup/process.mjs <face> <launches>
// face: plain | register | drop-in | host (register: the flag is on the command line).
const [face, launches] = [process.argv[2], Number(process.argv[3])];
const started = performance.now(); // since the process started: Node's own start before it

const t0 = performance.now();
let execFile;
let host = null;
if (face === "plain" || face === "register") {
  ({ execFile } = await import("node:child_process"));
} else if (face === "drop-in") {
  ({ execFile } = await import("spawnhost/child_process"));
} else if (face === "host") {
  const { ProcessHost } = await import("spawnhost");
  host = new ProcessHost();
  execFile = (file, args, callback) => host.execFile(file, args).then(() => callback(null), callback);
} else {
  throw new Error(`unknown face ${face}`);
}
const loadMs = performance.now() - t0;

let firstLaunchMs = 0;
if (launches > 0) {
  const t1 = performance.now();
  await new Promise((resolve, reject) => execFile("/bin/true", [], (error) => (error ? reject(error) : resolve())));
  firstLaunchMs = performance.now() - t1;
}
await host?.shutdown();

process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(JSON.stringify({
    cpuMs: (user + system) / 1000,
    maxRssKb: process.resourceUsage().maxRSS,
    beforeScriptMs: started,
    loadMs,
    firstLaunchMs,
  }));
});
