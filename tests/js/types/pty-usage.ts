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
// @ts-expect-error the command line string is node-pty's Windows form
spawn("sh", "-c true");
