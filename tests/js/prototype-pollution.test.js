// Options are read from their own properties only, as node:child_process reads them:
// what prototype pollution puts on Object.prototype does not become a cwd, a uid, a
// shell or a helper. For every option key Node or spawnhost reads, a child process
// pollutes Object.prototype with it and runs every call of every face: what came of
// each call must be what came of node:child_process's own in the same polluted process
// (this Node version's behaviour, quirks included: Node still lists inherited keys in
// a child's environment, feeds an inherited `input` to spawnSync's stdin and reads
// execFile's argv0 and execFileSync's stdio from the caller's object).
//   Faces: spawnhost/child_process (its shared host made under the pollution),
// node:child_process under spawnhost/register, and ProcessHost in helper and in inline mode (its
// constructor, spawn, execFile, exec and fork, compared with Node's calls of the same
// name without options).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { modes } from "./support/modes.js";
import { scratchDir } from "./support/scratch.js";

const run = promisify(execFile);
const fixture = (name) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const dir = scratchDir("spawnhost-pollution-");
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "evil.sh"), "#!/bin/sh\necho EVIL\n");
chmodSync(join(dir, "evil.sh"), 0o755);

// Every key an options object is read for, each with values that would show if it were
// honoured (value names: tests/fixtures/pollution.mjs).
const KEYS = {
  // node:child_process's options
  cwd: ["tmp", "empty", "bigint"],
  env: ["envObject"],
  uid: ["nobody", "gwak"],
  gid: ["nobody", "gwak"],
  shell: ["evil", "true"],
  argv0: ["text", "number"],
  detached: ["true", "yes"],
  stdio: ["ignore", "bogus"],
  windowsHide: ["yes"],
  windowsVerbatimArguments: ["yes"],
  timeout: ["minus1", "one"],
  killSignal: ["SIGNOPE"],
  maxBuffer: ["one", "minus1"],
  // (encoding and signal: below, in the options layer only. Node's streams read both
  // from every options object they are made with, so with either on Object.prototype
  // node:child_process itself breaks: spawn throws ERR_UNKNOWN_ENCODING for "buffer",
  // every pipe decodes as "hex", an aborted signal destroys each stdio socket, and a
  // signal that is no AbortSignal makes every stream throw. That is the streams' doing,
  // not an option's.)
  serialization: ["advanced", "bogus"],
  silent: ["true"],
  input: ["text", "number"],
  execPath: ["missing"],
  execArgv: ["flags", "yes"],
  // spawnhost's call options
  completeWhen: ["stdoutJson", "bogus"],
  // ProcessHost's (and the shared host's) options
  mode: ["inline", "bogus"],
  transport: ["transport", "number"],
  maxLaunchThreads: ["zero"],
  onLaunch: ["number"],
  onUnhandledChildError: ["number"],
  restart: ["yes"],
  killGraceMs: ["minus1"],
  helperPath: ["evil", "empty"],
  fallback: ["bogus"],
  helperPlatform: ["win32"],
  helperTimeoutMs: ["zero"],
  trackEnv: ["true", "yes"],
  // the transport's, read only when one is given: here they must change nothing
  command: ["evil"],
  args: ["number"],
  remoteCommand: ["bogus"],
  bootstrap: ["yes"],
  cacheDir: ["number"],
  helpers: ["number"],
  name: ["number"],
  // fields of spawnhost's own normalized requests and call settings
  platform: ["win32"],
  viaExec: ["true"],
  defaultEnv: ["remote"],
  sync: ["true"],
  remote: ["true"],
  // (Not `ipc`: Node's own stdio entries inherit it, and node:child_process hangs.)
  kind: ["bogus"],
  envPairs: ["flags"],
};

const HOST_CALLS = ["spawn", "execFile", "exec", "fork"];

async function probe(key, valueName, faces, flags = []) {
  const { stdout } = await run(process.execPath, [...flags, fixture("pollution-probe.mjs"), key, valueName, dir, ...faces], {
    env: { ...process.env, NODE_OPTIONS: "" }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trimEnd().split("\n").at(-1));
}

// What is read from an options object is decided in JavaScript, whichever helper then
// serves the call: the runs that vary only the helper (SPAWNHOST_TEST_MODES=helper: its
// exit detection, its launcher, arm64, the sanitizers) leave the faces, which need an
// inline host too, to the full runs (npm test, every Node version). The options-layer
// tests below run everywhere.
const facesSkip = modes().includes("inline") ? false : "the faces are compared in the runs that include inline mode";

for (const [key, values] of Object.entries(KEYS)) {
  for (const valueName of values) {
    test(`Object.prototype.${key} (${valueName}) changes no call of any face more than it changes node:child_process's`, { skip: facesSkip }, async (t) => {
      const [plain, registered] = await Promise.all([
        probe(key, valueName, ["node", "drop-in", "host-helper", "host-inline"]),
        probe(key, valueName, ["register"], ["--import", "spawnhost/register"]),
      ]);
      const node = plain.node;
      await t.test("spawnhost/child_process", () => assert.deepStrictEqual(plain["drop-in"], node));
      await t.test("spawnhost/register", () => assert.deepStrictEqual(registered.register, node));
      for (const face of ["host-helper", "host-inline"]) {
        await t.test(`ProcessHost (${face.slice(5)} mode)`, () => {
          const results = plain[face];
          assert.deepStrictEqual(results.constructor, { mode: face.slice(5) }, "the constructor ignores it");
          for (const call of HOST_CALLS) {
            if (call === "execFile" && key === "argv0" && node.execFile.threw) {
              // Node's execFile validates argv0 on what stands in the options' place, its
              // callback when there are no options: an inherited argv0 that is no string
              // makes every callback and promisified execFile throw. ProcessHost.execFile
              // has no callback, and ignores what options inherit: it just runs.
              assert.equal(results.execFile.error, null, call);
              assert.match(results.execFile.stdout, /^string:cwd=/, call);
              continue;
            }
            assert.deepStrictEqual(results[call], node[call], call);
          }
        });
      }
    });
  }
}

// The options layer itself, for every key above and for encoding and signal: a request
// normalized with the key on Object.prototype is the request normalized without it,
// but for the environment, which lists inherited keys as child_process does (Node 20 to
// 25; Node 26 reads its own environment block).
const LAYER_VALUES = { encoding: ["buffer", "hex"], signal: ["aborted", "yes"] };
const { VALUES } = await import("../fixtures/pollution.mjs");
const { normalizeExecRequest, normalizeForkRequest, normalizeSpawnRequest } = await import("../../js/src/core/options.js");
const { execArguments, execFileArguments, forkArguments, spawnArguments } = await import("../../js/src/drop-in/arguments.js");
const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
const LAYER_CALLS = {
  "normalizeSpawnRequest": () => normalizeSpawnRequest("/bin/sh", ["-c", "true"], {}),
  "normalizeSpawnRequest (sync)": () => normalizeSpawnRequest("/bin/sh", ["-c", "true"], {}, { __proto__: null, sync: true }),
  "normalizeExecRequest": () => normalizeExecRequest("/bin/sh", ["-c", "true"], {}),
  "normalizeExecRequest (exec)": () => normalizeExecRequest("true", [], {}, { __proto__: null, viaExec: true }),
  "normalizeForkRequest": () => normalizeForkRequest("child.js", [], {}),
  "spawnArguments": () => spawnArguments("/bin/sh", ["-c", "true"], {}),
  "execArguments": () => execArguments("true", {}),
  "forkArguments": () => forkArguments("child.js", [], {}),
  // execFile's `given` is the caller's object itself: Node reads argv0 and stdio from it.
  "execFileArguments": () => ({ ...execFileArguments("/bin/sh", ["-c", "true"], {}), given: undefined }),
};
const plain = (value) => (value && typeof value === "object" && !ArrayBuffer.isView(value) ? JSON.parse(JSON.stringify({ ...value })) : value);

for (const [key, values] of Object.entries({ ...KEYS, ...LAYER_VALUES })) {
  for (const valueName of values) {
    test(`the options layer reads no Object.prototype.${key} (${valueName})`, () => {
      const clean = Object.fromEntries(Object.entries(LAYER_CALLS).map(([name, call]) => [name, plain(call())]));
      const value = VALUES[valueName].call(null);
      Object.prototype[key] = valueName === "evil" ? join(dir, "evil.sh") : value;
      let polluted;
      try {
        polluted = Object.fromEntries(Object.entries(LAYER_CALLS).map(([name, call]) => [name, plain(call())]));
      } finally {
        delete Object.prototype[key];
      }
      for (const [name, request] of Object.entries(polluted)) {
        if (name === "execFileArguments" && key === "argv0" && typeof value !== "string") {
          // Node validates argv0 on the caller's object, inherited or not, and throws:
          // the call is Node's to run (and to throw for).
          assert.match(request.fallbackReason, /node:child_process validates/);
          continue;
        }
        const inherited = `${key}=${Object.prototype[key] ?? (valueName === "evil" ? join(dir, "evil.sh") : value)}`;
        if (Array.isArray(request?.envPairs)) {
          assert.equal(request.envPairs.includes(inherited), NODE_MAJOR < 26, `${name}: the inherited key in the environment`);
          request.envPairs = request.envPairs.filter((pair) => pair !== inherited);
        }
        assert.deepStrictEqual(request, clean[name], name);
      }
    });
  }
}
