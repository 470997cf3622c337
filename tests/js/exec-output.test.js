// execFile/exec output as Node's execFile gathers it, against node:child_process: the
// maxBuffer cut (inside a UTF-8 character, with setEncoding() on an output of a call
// without encoding) and which encodings give Buffers. Both faces: ProcessHost's
// execFile in each mode, and spawnhost/child_process through the helper.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor } from "./support/modes.js";

const UNICODE = "中文测试"; // 4 characters, 12 bytes
const printing = (stream, text) => [process.execPath, ["-e", `process.${stream}.write(${JSON.stringify(text + "\n")})`]];

// What a call's callback got, in a form to compare: the error's message and code, and
// each output with its type.
function callbackOutcome(api, file, args, options, prepare = () => {}) {
  return new Promise((resolve) => {
    const child = api.execFile(file, args, options, (error, stdout, stderr) => {
      resolve({ error: error && [error.message, error.code], stdout: typed(stdout), stderr: typed(stderr) });
    });
    prepare(child);
  });
}

const typed = (value) => (Buffer.isBuffer(value) ? ["Buffer", [...value]] : [typeof value, value]);

describe("exec output: spawnhost/child_process as node:child_process", () => {
  const same = async (file, args, options, prepare) => {
    const node = await callbackOutcome(childProcess, file, args, options, prepare);
    const ours = await callbackOutcome(dropIn, file, args, options, prepare);
    assert.equal(dropIn.stats().mode, "helper");
    assert.deepEqual(ours, node);
    return ours;
  };

  test("maxBuffer with stdout.setEncoding() on a call without encoding: counted and joined as text", async () => {
    const ours = await same(...printing("stdout", UNICODE), { encoding: null, maxBuffer: 10 }, (child) => child.stdout.setEncoding("utf-8"));
    assert.deepEqual(ours.stdout, ["string", `${UNICODE}\n`]);
  });

  test("maxBuffer with stderr.setEncoding() on a call without encoding: counted and joined as text", async () => {
    await same(...printing("stderr", UNICODE), { encoding: null, maxBuffer: 3 }, (child) => child.stderr.setEncoding("utf-8"));
  });

  test("maxBuffer cut inside a UTF-8 character keeps the characters Node keeps", async () => {
    const ours = await same(...printing("stderr", UNICODE), { maxBuffer: 3 });
    assert.deepEqual(ours.stderr, ["string", "中文测"]);
    assert.deepEqual(ours.error, ["stderr maxBuffer length exceeded", "ERR_CHILD_PROCESS_STDIO_MAXBUFFER"]);
  });

  test("maxBuffer cut of a Buffer output keeps exactly maxBuffer bytes", async () => {
    const ours = await same(...printing("stderr", UNICODE), { encoding: "buffer", maxBuffer: 5 });
    assert.deepEqual(ours.stderr, ["Buffer", [...Buffer.from(UNICODE).subarray(0, 5)]]);
  });

  test("encoding given as undefined gives Buffers, as Node's execFile", async () => {
    const ours = await same("echo", ["foo"], { encoding: undefined });
    assert.deepEqual(ours.stdout, ["Buffer", [...Buffer.from("foo\n")]]);
  });

  test("exec with encoding undefined gives Buffers too", async () => {
    const run = (api) => new Promise((resolve) => api.exec("echo foo", { encoding: undefined }, (error, stdout) => resolve([error, typed(stdout)])));
    assert.deepEqual(await run(dropIn), await run(childProcess));
  });
});

for (const mode of modes()) {
  describe(`exec output: ProcessHost (${mode}) execFile as node:child_process`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    const outcome = async (promise) => {
      try {
        const { stdout, stderr } = await promise;
        return { error: null, stdout: typed(stdout), stderr: typed(stderr) };
      } catch (error) {
        return { error: [error.message, error.code], stdout: typed(error.stdout), stderr: typed(error.stderr) };
      }
    };

    for (const [name, stream, options] of [
      ["maxBuffer cut inside a UTF-8 character of stdout keeps the characters Node keeps", "stdout", { maxBuffer: 10 }],
      ["maxBuffer cut inside a UTF-8 character of stderr keeps the characters Node keeps", "stderr", { maxBuffer: 3 }],
      ["maxBuffer cut of a Buffer output keeps exactly maxBuffer bytes", "stderr", { encoding: "buffer", maxBuffer: 5 }],
    ]) {
      test(name, async () => {
        const [file, args] = printing(stream, UNICODE);
        const node = await callbackOutcome(childProcess, file, args, options);
        const ours = await outcome(host.execFile(file, args, options));
        assert.deepEqual([ours.stdout, ours.stderr, ours.error[0]], [node.stdout, node.stderr, node.error[0]]);
      });
    }
  });
}
