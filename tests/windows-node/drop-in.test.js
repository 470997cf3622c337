// The drop-in face, spawnhost/child_process, on Windows Node: each call made through it
// and through node:child_process itself, with real Windows children, must give the same.
import { strict as assert } from "node:assert";
import * as node from "node:child_process";
import { test } from "node:test";
import * as dropIn from "spawnhost/child_process";
import { fixture } from "./support/win.js";

dropIn.configure({ fallback: "error" });
const faces = { node, dropIn };
const closed = (child) => new Promise((resolve) => {
  let text = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk) => { text += chunk; });
  child.on("close", (code, signal) => resolve({ text, code, signal }));
});
/** What each face gives for `call`, and how many launches the drop-in made through the helper. */
async function both(call) {
  const before = dropIn.stats();
  const got = { node: await call(node), dropIn: await call(dropIn) };
  return { ...got, helper: dropIn.stats().helper - before.helper };
}

test("spawn, execFile and exec of cmd.exe, node.exe and the fixture: same output, through the helper", { timeout: 60_000 }, async () => {
  const { node: a, dropIn: b, helper } = await both(async (cp) => [
    await closed(cp.spawn("cmd.exe", ["/c", "echo one"])),
    await new Promise((resolve) => cp.execFile(process.execPath, ["-e", "console.log(process.argv.slice(1))", "a b", 'c"d'], (e, out) => resolve([e, out]))),
    await new Promise((resolve) => cp.exec("echo %OS% & exit /b 3", (e, out) => resolve([e?.code, out]))),
    await closed(cp.spawn(fixture, ["argv", "x y", "z"])),
  ]);
  assert.deepEqual(b, a);
  assert.equal(helper, 4);
});

test("env with names that differ only in case: the child gets the one Node keeps", { timeout: 60_000 }, async () => {
  const env = { ...process.env, duplicate: "lowercase", DUPLICATE: "uppercase", Zz: "2", ZZ: "1", zZ: "3" };
  const { node: a, dropIn: b } = await both((cp) => closed(cp.spawn("cmd.exe", ["/c", "set"], { env })));
  const pick = ({ text }) => text.split("\r\n").filter((l) => /^(duplicate|zz)=/i.test(l)).sort();
  assert.deepEqual(pick(a), ["DUPLICATE=uppercase", "ZZ=1"]);
  assert.deepEqual(pick(b), pick(a));
});

test("kill with each signal: the same exit event, and the child ends (SIGHUP hung before)", { timeout: 60_000 }, async () => {
  for (const signal of ["SIGTERM", "SIGKILL", "SIGINT", "SIGQUIT", "SIGHUP", "SIGBREAK", "SIGABRT"]) {
    const { node: a, dropIn: b } = await both(async (cp) => {
      const child = cp.spawn("cmd.exe");  // waits on its stdin: only the kill ends it
      const ended = closed(child);
      const sent = child.kill(signal);
      const { code, signal: got } = await ended;
      return { sent, code, got, killed: child.killed, signalCode: child.signalCode };
    });
    assert.deepEqual(b, a, signal);
  }
});

// What a call threw, or the error its result or callback carried, as plain fields.
function outcome(run) {
  const fields = (e) => e && { name: e.name, message: e.message, code: e.code, errno: e.errno, syscall: e.syscall, path: e.path, spawnargs: e.spawnargs };
  try {
    const result = run();
    return { returned: true, error: fields(result?.error) };
  } catch (error) {
    return { threw: fields(error) };
  }
}

test("uid or gid on every face: ENOTSUP as Node gives it (thrown by spawn, exec, execFile, fork; in spawnSync's result)", { timeout: 60_000 }, () => {
  const calls = {
    spawn: (cp, ids) => cp.spawn("cmd.exe", ["/c", "echo"], ids),
    spawnMissingProgram: (cp, ids) => cp.spawn("no-such-program", [], ids),
    execFile: (cp, ids) => cp.execFile("cmd.exe", ["/c", "echo"], ids, () => {}),
    exec: (cp, ids) => cp.exec("echo hi", ids, () => {}),
    fork: (cp, ids) => cp.fork("no-such-module.js", [], ids),
    spawnSync: (cp, ids) => cp.spawnSync("cmd.exe", ["/c", "echo"], ids),
    execSync: (cp, ids) => cp.execSync("echo hi", ids),
    execFileSync: (cp, ids) => cp.execFileSync("cmd.exe", ["/c", "echo"], ids),
  };
  for (const ids of [{ uid: 0 }, { gid: 0 }, { uid: 1000, gid: 1000 }]) {
    for (const [name, call] of Object.entries(calls)) {
      const expected = outcome(() => call(faces.node, ids));
      assert.match((expected.threw ?? expected.error).message, /ENOTSUP/, `${name} ${JSON.stringify(ids)}: Node's own`);
      assert.deepEqual(outcome(() => call(faces.dropIn, ids)), expected, `${name} ${JSON.stringify(ids)}`);
    }
  }
});
