// Invalid arguments throw (reject with) TypeErrors naming the option, the value and
// what was expected, before anything is started, in every mode.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { ProcessHost } from "spawnhost";
import { modes, hostFor } from "./support/modes.js";

const invalidExecOptions = [
  [{ timeout: -1 }, /"timeout".*non-negative integer.*-1/],
  [{ timeout: 1.5 }, /"timeout"/],
  [{ maxBuffer: "big" }, /"maxBuffer".*"big"/],
  [{ killSignal: "SIGNOPE" }, /Unknown signal: SIGNOPE/],
  [{ cwd: 42 }, /"cwd".*a string.*42/],
  [{ env: "A=1" }, /"env".*an object/],
  [{ uid: -1 }, /"uid"/],
  [{ gid: "root" }, /"gid"/],
  [{ shell: 1 }, /"shell"/],
  [{ signal: {} }, /"signal".*AbortSignal/],
  [{ input: 12 }, /"input"/],
  [{ completeWhen: "exit" }, /"completeWhen".*stdout-json/],
  [{ windowsHide: "yes" }, /"windowsHide".*boolean/],
];

for (const mode of modes()) {
  describe(`option validation (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    for (const [options, message] of invalidExecOptions) {
      test(`execFile rejects ${JSON.stringify(options)} with a TypeError`, async () => {
        await assert.rejects(host.execFile("true", [], options), (error) => {
          assert.ok(error instanceof TypeError, String(error));
          assert.match(error.message, message);
          return true;
        });
      });
    }

    test("a NUL byte in an argument is ERR_INVALID_ARG_VALUE", async () => {
      await assert.rejects(host.execFile("echo", ["a\u0000b"]), { name: "TypeError", code: "ERR_INVALID_ARG_VALUE" });
    });

    test("a NUL byte in an environment value is ERR_INVALID_ARG_VALUE", async () => {
      await assert.rejects(host.execFile("true", [], { env: { A: "x\u0000" } }), { code: "ERR_INVALID_ARG_VALUE" });
    });

    test("a NUL byte in the file name is ERR_INVALID_ARG_VALUE", async () => {
      await assert.rejects(host.spawn("tr\u0000ue"), { code: "ERR_INVALID_ARG_VALUE" });
    });

    test("an empty file name is rejected", async () => {
      await assert.rejects(host.execFile(""), { name: "TypeError", code: "ERR_INVALID_ARG_VALUE" });
    });

    test("args that are not an array are rejected", async () => {
      await assert.rejects(host.execFile("echo", "hello"), { name: "TypeError" });
    });

    test("an argument that is not a string is rejected", async () => {
      await assert.rejects(host.execFile("echo", [1]), /"args\[0\]".*a string/);
    });

    test("an options object in place of args is taken as the options", async () => {
      const { stdout } = await host.execFile("pwd", { cwd: "/" });
      assert.equal(stdout, "/\n");
    });

    test("a stdio entry that is another descriptor, or an object that is no stream with a handle, is refused, never ignored", async () => {
      await assert.rejects(host.spawn("true", [], { stdio: ["pipe", "pipe", process.stdout] }), /"stdio\[2\]"/);
      await assert.rejects(host.spawn("true", [], { stdio: ["pipe", new PassThrough(), "pipe"] }), /"stdio\[1\]"/);
      await assert.rejects(host.spawn("true", [], { stdio: ["pipe", "pipe", 5] }), /"stdio\[2\]"/);
      await assert.rejects(host.spawn("true", [], { stdio: ["pipe", "pipe", "pipe", "ipc", "pipe"] }), /"stdio".*"ipc" as a fourth/);
    });

    test("an unknown stdio name is refused", async () => {
      await assert.rejects(host.spawn("true", [], { stdio: "overlapped" }), { name: "TypeError" });
    });
  });
}

describe("ProcessHost options", () => {
  test("an unknown mode is a TypeError naming it", () => {
    assert.throws(() => new ProcessHost({ mode: "worker" }), /"mode".*"worker"/);
  });

  test("maxLaunchThreads must be a positive integer", () => {
    assert.throws(() => new ProcessHost({ maxLaunchThreads: 0 }), /"maxLaunchThreads"/);
    for (const bad of [0, -1, 1.5, "10", 2 ** 31]) {
      assert.throws(() => new ProcessHost({ helperTimeoutMs: bad }), { name: "TypeError", code: "ERR_OUT_OF_RANGE", message: /"helperTimeoutMs"/ });
    }
  });

  test("hooks must be functions", () => {
    assert.throws(() => new ProcessHost({ onLaunch: "log" }), /"onLaunch".*a function/);
    assert.throws(() => new ProcessHost({ onUnhandledChildError: 1 }), /"onUnhandledChildError"/);
  });

  test("removeTree refuses a path that is not a non-empty string", async () => {
    await assert.rejects(new ProcessHost({ mode: "inline" }).removeTree(""), { name: "TypeError" });
  });
});
