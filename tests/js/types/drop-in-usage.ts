// Uses spawnhost/child_process and spawnhost/register; tests/js/types.test.js type-checks it.
import "spawnhost/register";
import childProcess, {
  spawn, exec, execFile, fork, spawnSync, execSync, execFileSync, ChildProcess, configure, stats,
  type DropInStats, type SpawnOptions, type ExecException,
} from "spawnhost/child_process";
import { promisify } from "node:util";

async function usesTheDropIn(): Promise<void> {
  configure({ maxLaunchThreads: 4, killGraceMs: 1000, helperPath: "/opt/spawnhost-helper", fallback: "inline", helperTimeoutMs: 5000 });
  const options: SpawnOptions = { stdio: ["pipe", "pipe", "inherit"], cwd: "/" };
  const child: ChildProcess = spawn("ls", ["-l"], options);
  const pid: number | undefined = child.pid;
  child.stdout?.on("data", (chunk: Buffer) => chunk.length);
  child.on("exit", (code: number | null, signal: NodeJS.Signals | null) => [code, signal, pid]);
  exec("echo hi", (error: ExecException | null, stdout: string, stderr: string) => [error?.code, stdout, stderr]);
  execFile("echo", ["a"], { encoding: "buffer" }, (error, stdout: Buffer) => [error, stdout.length]);
  const { stdout }: { stdout: string } = await promisify(execFile)("echo", ["b"]);
  const forked = fork("./worker.js", [], { serialization: "advanced" });
  forked.send({ hello: 1 });
  const sync: Buffer = spawnSync("true").stdout;
  const text: string = execSync("echo", { encoding: "utf8" });
  const bytes: Buffer = execFileSync("true");
  const counts: DropInStats = stats();
  const reasons: Record<string, number> = counts.fallbackReasons;
  const viaDefault: ChildProcess = childProcess.spawn("true");
  console.log(stdout, sync, text, bytes, reasons, counts.mode, viaDefault);
}

void usesTheDropIn;
