// DEP0190 (Node 24 and later: args passed with `shell`) is warned once per process, as
// node:child_process warns it, however the calls are split between the helper and
// node:child_process itself (a call the helper cannot take).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const WARNS = Number(process.versions.node.split(".")[0]) >= 24;

// A helper launch with shell and args, then one that node:child_process runs (its
// stdin is a stream), then spawnSync: the warnings each face emitted, by code.
const program = (module) => `
  import * as cp from ${JSON.stringify(module)};
  const codes = [];
  process.on("warning", (warning) => codes.push(warning.code));
  await new Promise((resolve) => cp.execFile("echo", ["a"], { shell: true }, resolve));
  // (A fourth stdio entry: node:child_process runs it.)
  const child = cp.spawn("echo", ["c"], { shell: true, stdio: ["ignore", "ignore", "ignore", "ignore"] });
  await new Promise((resolve) => child.on("close", resolve));
  cp.spawnSync("echo", ["b"], { shell: true });
  setImmediate(() => console.log(JSON.stringify(codes.filter((code) => code === "DEP0190"))));
`;

const warnings = (module) => {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", program(module)], { cwd: root, encoding: "utf8", timeout: 30_000 });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout.trim().split("\n").at(-1));
};

test("DEP0190 is warned once, as node:child_process warns it", { skip: !WARNS && "Node before 24 has no DEP0190" }, () => {
  const node = warnings("node:child_process");
  assert.deepStrictEqual(node, ["DEP0190"]);
  assert.deepStrictEqual(warnings("spawnhost/child_process"), node);
});
