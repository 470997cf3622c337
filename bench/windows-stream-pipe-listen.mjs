#!/usr/bin/env node
// What a launch's own stream pipe costs Node's thread on Windows (js/src/helper/stream-pipes.js):
// each launch with piped stdio listens on a named pipe with one instance per piped fd,
// in its spawn() call. Timed here: making that pipe for 3 fds (launchOptions) and
// closing it (discard), against the spawn() call of node:child_process with 3 pipes
// (CreateNamedPipe x3 and CreateProcess on this thread, one child at a time), in the same run. Medians of
// rounds, µs per launch, and the ratio of the pipe to child_process's spawn() call.
//   wine node.exe bench/windows-stream-pipe-listen.mjs [--launches 200] [--rounds 5] [--fixture PATH]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { StreamPipeInbox } from "../js/src/helper/stream-pipes.js";

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const launches = Number(arg("launches", 200));
const rounds = Number(arg("rounds", 5));
const fixture = arg("fixture", process.env.SPAWNHOST_WIN_FIXTURE);
if (process.platform !== "win32" || !fixture) {
  console.error("run with Windows node.exe and SPAWNHOST_WIN_FIXTURE (or --fixture) set");
  process.exit(2);
}
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

let nextId = 1;
function pipeRound() {
  const inbox = new StreamPipeInbox(`\\\\.\\pipe\\spawnhost-bench-${process.pid}-${randomBytes(8).toString("hex")}`);
  const started = process.hrtime.bigint();
  for (let i = 0; i < launches; i++) {
    const options = inbox.launchOptions([0, 1, 2], nextId++);
    inbox.discard(0, 0, options);
  }
  const us = Number(process.hrtime.bigint() - started) / 1000 / launches;
  inbox.close();
  return us;
}

// One child at a time, so that the call is not slowed by many children running.
async function childProcessRound() {
  let total = 0n;
  for (let i = 0; i < launches; i++) {
    const started = process.hrtime.bigint();
    const child = spawn(fixture, ["exit", "0"]);
    total += process.hrtime.bigint() - started;
    child.stdout.resume();
    child.stderr.resume();
    await new Promise((resolve) => child.on("close", resolve));
  }
  return Number(total) / 1000 / launches;
}

const pipe = [];
const cp = [];
for (let r = 0; r < rounds; r++) {
  pipe.push(pipeRound());
  cp.push(await childProcessRound());
}
const p = median(pipe);
const c = median(cp);
console.log(`a launch's stream pipe (3 instances, listen + close): ${p.toFixed(1)} µs per launch (median of ${rounds} rounds of ${launches})`);
console.log(`child_process spawn() call with 3 pipes: ${c.toFixed(1)} µs per launch`);
console.log(`ratio pipe / child_process spawn(): ${(p / c).toFixed(3)}`);
