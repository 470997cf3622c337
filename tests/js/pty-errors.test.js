// spawnhost/pty's errors for a running terminal (docs/pty.md): a resize the helper could
// not make (Windows under wine: ResizePseudoConsole answers E_NOTIMPL) comes after
// resize() returned, as the helper's non-fatal error for the child. The terminal keeps
// running and says so: an `error` event where one is listened for, else one warning.
// Driven here with a stand-in for the helper's child, so it runs on every platform;
// tests/windows-node/pty.test.js sees the real one under wine.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { PassThrough } from "node:stream";
import { Terminal } from "../../js/src/pty/terminal.js";
import { normalizePtyOptions } from "../../js/src/pty/options.js";

function runningTerminal() {
  const child = new EventEmitter();
  child.stdout = new PassThrough();
  child.stdin = new PassThrough();
  child.pid = 4242;
  child.resized = [];
  child.resize = (cols, rows) => child.resized.push([cols, rows]);
  child.kill = () => {};
  const term = new Terminal(normalizePtyOptions("prog", [], { cols: 80, rows: 24 }), child, null);
  child.emit("spawn");
  return { term, child };
}

// As js/src/launch/helper-launch.js words the helper's `error` frame for a running child.
const rejected = (message) => new Error(`the helper rejected a request for this child: ${message}`);

test("a resize the helper could not make is an error event with its code; the terminal goes on", async () => {
  const { term, child } = runningTerminal();
  term.resize(100, 40);
  assert.deepEqual(child.resized, [[100, 40]]);
  const errored = once(term, "error");
  child.emit("error", rejected("resize: ENOTSUP: Request not supported"));
  const [error] = await errored;
  assert.equal(error.code, "ENOTSUP");
  assert.equal(error.syscall, "resize");
  assert.equal(error.message, "spawnhost/pty: the terminal could not be resized: Request not supported (ENOTSUP)");
  assert.deepEqual([term.cols, term.rows], [100, 40]);
  // Still running: output shows, and the exit comes.
  const shown = once(term, "data");
  child.stdout.write("still here");
  assert.deepEqual(await shown, ["still here"]);
  const exited = once(term, "exit");
  child.stdout.end();
  child.emit("exit", 0, null);
  assert.deepEqual(await exited, [0, 0]);
});

test("with no error listener, failed resizes are one warning per terminal, never a throw", async () => {
  const warnings = [];
  const onWarning = (warning) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const { child } = runningTerminal();
    child.emit("error", rejected("resize: ENOTSUP: Request not supported"));
    child.emit("error", rejected("resize: ENOTSUP: Request not supported"));
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings.map((w) => [w.name, w.code, w.message]),
    [["SpawnhostWarning", "SPAWNHOST_PTY_ENOTSUP", "spawnhost/pty: the terminal could not be resized: Request not supported (ENOTSUP)"]]);
});

test("before the child runs, an error is the failed start: `error` where listened for, its reason shown, exit 1 once", async () => {
  const child = new EventEmitter();
  child.stdout = new PassThrough();
  child.stdin = new PassThrough();
  const term = new Terminal(normalizePtyOptions("prog", [], {}), child, null);
  const exits = [];
  let shown = "";
  term.onData((data) => (shown += data));
  term.onExit((exit) => exits.push(exit));
  const errored = once(term, "error");
  const failure = Object.assign(new Error("spawn ENOTSUP"), { code: "ENOTSUP" });
  term._startFailed(failure);
  assert.equal((await errored)[0], failure);
  child.emit("close", -1, null);
  assert.equal(shown, "spawnhost/pty: the terminal's program could not be started: spawn ENOTSUP\r\n");
  assert.deepEqual(exits, [{ exitCode: 1, signal: 0 }]);
  // Nobody listens for `error`: nothing is thrown, the exit comes all the same.
  const quiet = new Terminal(normalizePtyOptions("prog", [], {}), Object.assign(new EventEmitter(), { stdout: new PassThrough(), stdin: new PassThrough() }), null);
  const quietExit = new Promise((resolve) => quiet.onExit(resolve));
  quiet._startFailed(failure);
  assert.deepEqual(await quietExit, { exitCode: 1, signal: 0 });
});
