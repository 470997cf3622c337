// The Windows helper (build-win32-x64/spawnhost-helper.exe) under wine, driven from
// Linux Node through tests/windows/wine-helper with helperPlatform "win32". What the
// helper does for Windows Node is tested by Windows Node itself (tests/windows-node/,
// bash scripts/test-windows-node); what stays here is what only Linux Node sees:
// - helperPlatform "win32": requests shaped on Linux for a Windows helper (shell, quoting),
//   over a Linux pipe, as a Windows helper across a transport would get them;
// - stdio "inherit" from Linux Node (EBADF: no C runtime descriptors reach wine);
// - an "ipc" entry read by a mingw program that speaks libuv's frames itself;
// - Linux Node's death, seen by the helper as the end of a Linux pipe on its stdin.
// Skipped unless SPAWNHOST_TEST_WINE=1 (`npm test` does not need wine; CI runs this file
// in its own step, bash scripts/test-windows); with it, a missing wine or .exe fails.
import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { ProcessHost } from "spawnhost";
import { readAll } from "./support/modes.js";
import { scratchDir } from "./support/scratch.js";

const root = resolve(import.meta.dirname, "../..");
const helperExe = process.env.SPAWNHOST_WIN_HELPER ?? join(root, "build-win32-x64/spawnhost-helper.exe");
const fixtureExe = process.env.SPAWNHOST_WIN_FIXTURE ?? join(root, "build-win32-x64/fixtures/fixture.exe");
const wrapper = join(root, "tests/windows/wine-helper");
const hasWine = spawnSync("sh", ["-c", "command -v wine"]).status === 0;
const wanted = process.env.SPAWNHOST_TEST_WINE === "1";
const skip = wanted ? false : "the wine suite runs in its own step: bash scripts/test-windows (or SPAWNHOST_TEST_WINE=1)";
// Asked for explicitly, a missing wine or Windows build is a failure, not a skip: a
// CI step that tests nothing must not pass.
const missing = !hasWine ? "wine is not installed (apt-get install --no-install-recommends wine wine64)"
  : !existsSync(helperExe) || !existsSync(fixtureExe) ? `no Windows build at ${helperExe} and ${fixtureExe} (run bash scripts/test-windows)`
  : null;
if (wanted) {
  test("SPAWNHOST_TEST_WINE=1: wine and the Windows build are present", () => {
    assert.equal(missing, null, missing ?? "");
  });
}

/** A Linux path as wine's Z: drive sees it. */
const winPath = (p) => `Z:${p.replaceAll("/", "\\")}`;
const fixture = winPath(fixtureExe);
// Linux Node's own environment means nothing to Windows programs: every test passes one.
const env = { PATH: "C:\\windows\\system32;C:\\windows", SystemRoot: "C:\\windows" };

// The MSVC C runtime's quoting, written here from its rules (not from the helper's code)
// to check the command line the helper built.
function msvcQuote(arg) {
  if (arg === "") return '""';
  if (!/[ \t"]/.test(arg)) return arg;
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, "$1$1")}"`;
}

describe("Windows helper under wine", { skip: skip || (missing !== null && "see the failure above"), timeout: 120_000 }, () => {
  let host;
  let scratch;
  before(() => {
    process.env.SPAWNHOST_WINE_HELPER = helperExe;
    host = new ProcessHost({ helperPath: wrapper, helperPlatform: "win32", fallback: "error", maxLaunchThreads: 4 });
    scratch = scratchDir("spawnhost-wine-");
  });
  after(async () => {
    await host?.shutdown();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const run = (args, options = {}) => host.execFile(fixture, args, { env, ...options });

  test("requests shaped by Linux Node for a Windows helper: arguments quoted by the C runtime's rules, cmd.exe for shell commands", async () => {
    const args = ["plain", "with space", 'quote"inside', "trailing\\", ""];
    const got = JSON.parse((await run(["argv", ...args])).stdout);
    assert.deepEqual(got.argv, args);
    assert.equal(got.cmdline, [fixture, "argv", ...args].map(msvcQuote).join(" "));
    const { stdout } = await host.exec("echo %GREETING% && echo second", { env: { ...env, GREETING: "hi there" } });
    assert.equal(stdout, "hi there \r\nsecond\r\n");
    await assert.rejects(run(["exit", "3"]), { code: 3 });
  });

  test("stdio inherit under wine: EBADF (Node's descriptors 3-5 do not reach a Windows program from Linux)", async () => {
    // On Windows, Node hands them to the helper through the C runtime's descriptor
    // table; wine started from Linux Node has no such table. Documented in the README.
    await assert.rejects(host.spawn(fixture, ["exit", "0"], { env, stdio: ["ignore", "inherit", "ignore"] }), /EBADF/);
  });

  test("an \"ipc\" stdio entry is a libuv IPC pipe at C runtime descriptor 3: messages go both ways in libuv's frames", async () => {
    // The fixture reads the frames a Node child would read and writes each one's data
    // back in a frame (tests/windows-node/fork.test.js does this with Windows Node).
    for (const serialization of ["json", "advanced"]) {
      const child = await host.spawn(fixture, ["ipc-echo"], { env, stdio: ["ignore", "pipe", "pipe", "ipc"], serialization });
      const replies = [];
      child.on("message", (m) => replies.push(m));
      const sent = [{ a: 1, s: "é" }, "x".repeat(200 * 1024), [null, 2]];
      const written = sent.map((m) => new Promise((resolve) => child.send(m, resolve)));
      assert.deepEqual(await Promise.all(written), [null, null, null]);
      while (replies.length < sent.length) await once(child, "message");
      assert.deepEqual(replies, sent);
      child.disconnect();
      const [text, [code]] = await Promise.all([readAll(child.stdout), once(child, "close")]);
      assert.equal(code, 0);
      const [, frames] = /^fd3 pipe (\d+)\n$/.exec(text) ?? assert.fail(`${serialization}: ${text}`);
      assert.ok(Number(frames) >= sent.length, text);
    }
  });

  test("when Node dies, the helper sees its stdin end and ends its children", async () => {
    const marker = join(scratch, "after-node-died");
    const node = spawn(process.execPath, [join(root, "tests/windows/node-exits.mjs"), wrapper, fixture, winPath(marker)],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    const said = await readAll(node.stdout);
    assert.equal(said, "started\n");
    await new Promise((r) => setTimeout(r, 5000));
    assert.equal(existsSync(marker), false, "the child outlived Node");
  });
});
