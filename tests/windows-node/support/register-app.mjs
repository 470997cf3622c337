// Run by register.test.js as `node.exe --import spawnhost/register register-app.mjs`:
// launches real Windows children through every way of reaching child_process and prints,
// as JSON, what each gave and how many launches the helper made.
import childProcess, { exec, execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { stats } from "spawnhost/child_process";

const required = createRequire(import.meta.url)("child_process");
const output = (child) => new Promise((resolve) => {
  let text = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => { text += chunk; });
  child.on("close", (code, signal) => resolve({ text, code, signal }));
});
const report = { ways: {} };
async function counted(name, start) {
  const before = stats();
  report.ways[name] = { result: await start() };
  const after = stats();
  Object.assign(report.ways[name], { helper: after.helper - before.helper, fallback: after.fallback - before.fallback });
}

await counted("named import, cmd.exe", () => output(spawn("cmd.exe", ["/c", "echo named"])));
await counted("default import, node.exe", () => output(childProcess.spawn(process.execPath, ["-p", "process.platform"])));
await counted("require, fixture", () => output(required.spawn(process.env.SPAWNHOST_WIN_FIXTURE, ["argv", "a b"])));
await counted("promisified execFile", async () => (await promisify(execFile)("cmd.exe", ["/c", "echo promised"])).stdout);
await counted("exec", () => new Promise((resolve) => exec("echo %OS%", (error, stdout) => resolve(stdout))));
await counted("kill SIGHUP", async () => {
  const child = spawn("cmd.exe");  // waits on its stdin
  const ended = output(child);
  child.kill("SIGHUP");
  const { code, signal } = await ended;
  return { code, signal };
});
report.stats = stats();
process.stdout.write(`${JSON.stringify(report)}\n`);
