// The faces of tests/js/prototype-pollution*.test.js: for every option key Node or
// spawnhost reads, a child process pollutes Object.prototype with it and runs every call
// of every face; what came of each call must be what came of node:child_process's own in
// the same polluted process (tests/fixtures/pollution-probe.mjs). The keys are split
// between two test files, so that each runs in a fraction of the time one would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { modes } from "./modes.js";
import { scratchDir } from "./scratch.js";

const run = promisify(execFile);
const fixture = (name) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

/** A scratch directory holding evil.sh, a program that prints EVIL (removed at exit). */
export function pollutionDir() {
  const dir = scratchDir("spawnhost-pollution-");
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "evil.sh"), "#!/bin/sh\necho EVIL\n");
  chmodSync(join(dir, "evil.sh"), 0o755);
  return dir;
}

// Every key an options object is read for, each with values that would show if it were
// honoured (value names: tests/fixtures/pollution.mjs).
/** node:child_process's own options. */
export const NODE_KEYS = {
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
};

/** spawnhost's own: call options, host and transport options, fields of its requests. */
export const SPAWNHOST_KEYS = {
  // call options
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

async function probe(dir, key, valueName, faces, flags = []) {
  const { stdout } = await run(process.execPath, [...flags, fixture("pollution-probe.mjs"), key, valueName, dir, ...faces], {
    env: { ...process.env, NODE_OPTIONS: "" }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout.trimEnd().split("\n").at(-1));
}

// What is read from an options object is decided in JavaScript, whichever helper then
// serves the call: the runs that vary only the helper (SPAWNHOST_TEST_MODES=helper: its
// exit detection, its launcher, arm64, the sanitizers) leave the faces, which need an
// inline host too, to the full runs (npm test, Node 26). The options-layer tests
// (prototype-pollution.test.js) run everywhere.
const facesSkip = modes().includes("inline") ? false : "the faces are compared in the runs that include inline mode";

/** One test per key and value of `keys`: every face against node:child_process's calls. */
export function testFaces(keys, dir) {
  for (const [key, values] of Object.entries(keys)) {
    for (const valueName of values) {
      test(`Object.prototype.${key} (${valueName}) changes no call of any face more than it changes node:child_process's`, { skip: facesSkip }, async (t) => {
        const [plain, registered] = await Promise.all([
          probe(dir, key, valueName, ["node", "drop-in", "host-helper", "host-inline"]),
          probe(dir, key, valueName, ["register"], ["--import", "spawnhost/register"]),
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
}
