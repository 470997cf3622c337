// A launch without `env` sees process.env exactly as it is at the call, however it was
// changed on the line before, with and without trackEnv (js/src/core/process-env.js). The
// tracked mode's Proxy is installed in this test process on purpose: process.env must
// still behave as process.env for everything else that reads it.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import { execFile as cpExecFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { promisify, types } from "node:util";
import { modes, hostFor } from "./support/modes.js";
import { readProcessEnv } from "../../js/src/core/process-env.js";
import { scratchDir } from "./support/scratch.js";

const cpExec = promisify(cpExecFile);
const printX = ["-c", "printf %s \"${SPAWNHOST_T_X-unset}\""];

test("readProcessEnv returns the same frozen array while process.env is unchanged, a new one after a change", () => {
  const first = readProcessEnv();
  assert.equal(readProcessEnv(), first);
  assert.ok(Object.isFrozen(first));
  process.env.SPAWNHOST_T_FRESH = "1";
  const second = readProcessEnv();
  assert.notEqual(second, first);
  assert.ok(second.includes("SPAWNHOST_T_FRESH=1"));
  process.env.SPAWNHOST_T_FRESH = "2"; // same keys, another value
  assert.ok(readProcessEnv().includes("SPAWNHOST_T_FRESH=2"));
  delete process.env.SPAWNHOST_T_FRESH;
  assert.ok(!readProcessEnv().some((pair) => pair.startsWith("SPAWNHOST_T_FRESH=")));
});

for (const mode of modes()) {
  for (const trackEnv of [false, true]) {
    describe(`the default env (${mode}, trackEnv ${trackEnv})`, () => {
      const host = hostFor(mode, { trackEnv });
      after(() => host.shutdown());
      const x = async () => (await host.execFile("sh", printX)).stdout;

      test("every way JavaScript changes process.env is seen by the very next launch", async () => {
        assert.equal(await x(), "unset");
        process.env.SPAWNHOST_T_X = "set";
        assert.equal(await x(), "set");
        process.env.SPAWNHOST_T_X = 42;
        assert.equal(await x(), "42");
        Object.assign(process.env, { SPAWNHOST_T_X: "assigned" });
        assert.equal(await x(), "assigned");
        Object.defineProperty(process.env, "SPAWNHOST_T_X", { value: "defined", writable: true, enumerable: true, configurable: true });
        assert.equal(await x(), "defined");
        delete process.env.SPAWNHOST_T_X;
        assert.equal(await x(), "unset");
      });

      test("changes between launches started in the same tick reach each launch", async () => {
        process.env.SPAWNHOST_T_X = "first";
        const first = x();
        process.env.SPAWNHOST_T_X = "second";
        const second = x();
        delete process.env.SPAWNHOST_T_X;
        assert.deepEqual(await Promise.all([first, second]), ["first", "second"]);
      });

      test("process.loadEnvFile() is seen", { skip: typeof process.loadEnvFile !== "function" && "no process.loadEnvFile" }, async () => {
        const file = `${scratchDir("spawnhost-env-")}/.env`;
        writeFileSync(file, "SPAWNHOST_T_X=from-file\n");
        await x(); // the env as it was has been read (and, with trackEnv, is cached)
        process.loadEnvFile(file);
        try {
          assert.equal(await x(), "from-file");
        } finally {
          delete process.env.SPAWNHOST_T_X;
        }
      });

      // Node's own reading of a replaced process.env changed: 20 takes inherited keys
      // too, 22 and 24 own keys only, 26 ignores the replacement. Compared, not assumed.
      test("process.env replaced by an object of one's own is read as this Node's child_process reads it", async () => {
        const real = process.env;
        const own = Object.assign(Object.create({ SPAWNHOST_T_INHERITED: "yes" }), { PATH: real.PATH, SPAWNHOST_T_X: "own", SPAWNHOST_T_UNDEFINED: undefined });
        process.env = own;
        try {
          const script = ["-c", "printf '%s|%s|%s|%s' \"$SPAWNHOST_T_X\" \"$SPAWNHOST_T_INHERITED\" \"${SPAWNHOST_T_UNDEFINED-unset}\" \"${HOME-nohome}\""];
          const ours = (await host.execFile("sh", script)).stdout;
          const node = (await cpExec("sh", script)).stdout;
          assert.equal(ours, node);
        } finally {
          process.env = real;
        }
        assert.equal(await x(), "unset");
      });

    });
  }
}

test("with trackEnv, process.env still reads, lists and prints as before", () => {
  assert.ok(types.isProxy(process.env), "the hosts above installed trackEnv's Proxy");
  process.env.SPAWNHOST_T_Y = 7;
  try {
    assert.equal(process.env.SPAWNHOST_T_Y, "7");
    assert.ok(Object.keys(process.env).includes("SPAWNHOST_T_Y"));
    assert.equal(JSON.parse(JSON.stringify(process.env)).SPAWNHOST_T_Y, "7");
    assert.equal({ ...process.env }.SPAWNHOST_T_Y, "7");
    assert.ok("SPAWNHOST_T_Y" in process.env);
  } finally {
    delete process.env.SPAWNHOST_T_Y;
  }
  assert.equal(process.env.SPAWNHOST_T_Y, undefined);
});
