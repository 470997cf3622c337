// Type-checked by tests/js/types.test.js: node-pty code, with only its import changed.
import * as pty from "spawnhost/pty";
import { spawn, type IPty, type IPtyForkOptions, type IExitEvent } from "spawnhost/pty";

const options: IPtyForkOptions = {
  name: "xterm-256color",
  cols: 80,
  rows: 24,
  cwd: process.cwd(),
  env: process.env,
  encoding: "utf8",
  handleFlowControl: true,
  flowControlPause: "\x13",
  flowControlResume: "\x11",
};
const term: IPty = pty.spawn("bash", [], options);
const pid: number = term.pid;
const name: string = term.process;
const size: [number, number] = [term.cols, term.rows];
const sub = term.onData((data: string) => void data.length);
sub.dispose();
term.onExit(({ exitCode, signal }: IExitEvent) => void (exitCode + signal));
term.write("ls\r");
term.resize(100, 40);
term.pause();
term.resume();
term.clear();
term.kill("SIGTERM");

const raw = spawn("cat", [], { encoding: null });
raw.onData((data: Buffer) => void data.byteLength);
raw.on("data", (data) => void data);
raw.on("exit", (code: number, signal: number) => void (code + signal));
void [pid, name, size];

// @ts-expect-error cols is a number
spawn("sh", [], { cols: "80" });
// node-pty's Windows command-line form, and its Windows options.
const windows: pty.IWindowsPtyForkOptions = { conptyInheritCursor: true, useConpty: true };
spawn("cmd.exe", "/c echo hi", windows).destroy();
// No file: sh (Windows: COMSPEC, else cmd.exe), as node-pty.
pty.spawn(undefined, ["-c", "true"], { encoding: "base64" });
const pair = pty.open({ cols: 80, rows: 24, encoding: null });
pair.master.write("x");
pair.slave.on("data", (data: Buffer | string) => void data);
const pairPid: number = pair.pid;
const ptsName: string = pair.ptsName;
const opened: IPty = pair;
void [pairPid, ptsName, opened];
pair.destroy();
pty.fork("sh", [], {});
