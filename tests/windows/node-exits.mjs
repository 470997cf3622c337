// Starts one Windows child through the wine helper, says so, then SIGKILLs itself: the
// helper sees EOF on its stdin (through its blocking stdin thread) and runs its shutdown
// sequence, which must end the child before it creates its file.
//   node node-exits.mjs <wine-helper> <fixture> <file the child would create>
import { ProcessHost } from "spawnhost";

const [wrapper, fixture, file] = process.argv.slice(2);
const env = { PATH: "C:\\windows\\system32", SystemRoot: "C:\\windows" };
const host = new ProcessHost({ helperPath: wrapper, helperPlatform: "win32", fallback: "error", killGraceMs: 500 });
await host.spawn(fixture, ["touch-after", "3000", file], { env, stdio: "ignore" });
process.stdout.write("started\n");
process.kill(process.pid, "SIGKILL");
