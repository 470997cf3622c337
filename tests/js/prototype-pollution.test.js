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
// This file: node:child_process's option keys through every face, and the options layer
// for every key; spawnhost's own keys through every face: prototype-pollution-spawnhost.test.js.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NODE_KEYS, SPAWNHOST_KEYS, pollutionDir, testFaces } from "./support/pollution.js";

const dir = pollutionDir();
testFaces(NODE_KEYS, dir);

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

for (const [key, values] of Object.entries({ ...NODE_KEYS, ...SPAWNHOST_KEYS, ...LAYER_VALUES })) {
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
