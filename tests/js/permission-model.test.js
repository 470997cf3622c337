// Node's permission model: without --allow-child-process every face refuses a launch
// as node:child_process does (ERR_ACCESS_DENIED, synchronously from the drop-in's
// calls, as the rejection of ProcessHost's), and says nothing else: the helper's
// refused start is not a broken helper. With the flag, launches go to the helper again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const REGISTER = fileURLToPath(new URL("../../js/src/register.js", import.meta.url));
const FLAG = process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";

// Run under the model: each face's outcome, as JSON on stdout.
const PROBE = `
import * as nodeChildProcess from "node:child_process";
import * as dropIn from "spawnhost/child_process";
import { ProcessHost } from "spawnhost";
const shape = (error) => ({ name: error.name, code: error.code, message: error.message, permission: error.permission });
const outcome = (run) => { try { run(); return "ran"; } catch (error) { return shape(error); } };
const calls = {
  spawn: (api) => api.spawn("true").on("error", () => {}),
  execFile: (api) => api.execFile("true", () => {}),
  exec: (api) => api.exec("true", () => {}),
  spawnSync: (api) => api.spawnSync("true"),
  execFileSync: (api) => api.execFileSync("true"),
};
const result = { node: {}, dropIn: {}, host: {} };
for (const [name, call] of Object.entries(calls)) {
  result.node[name] = outcome(() => call(nodeChildProcess));
  result.dropIn[name] = outcome(() => call(dropIn));
}
for (const options of [{}, { fallback: "error" }, { mode: "inline" }]) {
  const host = new ProcessHost(options);
  result.host[JSON.stringify(options)] = await host.execFile("true").then(() => "ran", shape);
  await host.shutdown().catch(() => {});
}
result.helperLaunches = dropIn.stats().helper;
console.log(JSON.stringify(result));
`;

// `located`: the helper found as users get it (a platform package, else this checkout's
// build), which may fall back to inline; else the one SPAWNHOST_HELPER_PATH names.
function probe({ located }, ...flags) {
  const env = { ...process.env };
  if (located) delete env.SPAWNHOST_HELPER_PATH;
  // Warnings stay on (Node 20 reads --no-warnings=<type> as --no-warnings): all but the
  // model's own warnings (experimental; --allow-child-process), and Node's hint, are kept.
  const run = spawnSync(process.execPath, [FLAG, "--allow-fs-read=*", ...flags, "--import", REGISTER, "--input-type=module", "-e", PROBE], { encoding: "utf8", env });
  assert.equal(run.status, 0, run.stderr);
  const stderr = run.stderr.split("\n").filter((line) => line && !/ExperimentalWarning: Permission|SecurityWarning: The flag --allow-child-process|node --trace-warnings/.test(line)).join("\n");
  return { result: JSON.parse(run.stdout), stderr };
}

for (const located of [true, false]) {
  test(`without --allow-child-process every face throws Node's ERR_ACCESS_DENIED, and warns of nothing (helper ${located ? "located" : "named"})`, () => {
    const { result, stderr } = probe({ located });
    // Node's own error (its message names the flag from Node 22 on) is the one expected.
    const denied = result.node.spawn;
    assert.equal(denied.code, "ERR_ACCESS_DENIED");
    assert.equal(denied.permission, "ChildProcess");
    for (const name of Object.keys(result.node)) assert.deepEqual(result.node[name], denied, `node:child_process ${name}`);
    assert.deepEqual(result.dropIn, result.node);
    for (const [options, outcome] of Object.entries(result.host)) assert.deepEqual(outcome, denied, `ProcessHost ${options}`);
    assert.equal(result.helperLaunches, 0);
    assert.equal(stderr, "", "nothing on stderr: no broken-helper warning");
  });
}

test("with --allow-child-process the drop-in's launches go through the helper", () => {
  const { result, stderr } = probe({ located: false }, "--allow-child-process");
  for (const name of ["spawn", "execFile", "exec", "spawnSync", "execFileSync"]) {
    assert.equal(result.node[name], "ran");
    assert.equal(result.dropIn[name], "ran");
  }
  assert.deepEqual(Object.values(result.host), ["ran", "ran", "ran"]);
  assert.ok(result.helperLaunches >= 3, `${result.helperLaunches} launches through the helper`);
  assert.equal(stderr, "");
});
