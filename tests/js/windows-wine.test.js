// The Windows helper (build-win32-x64/spawnhost-helper.exe) under wine, driven from
// Linux Node through tests/windows/wine-helper with helperPlatform "win32". It launches
// cmd.exe and tests/windows/fixtures/fixture.c (cross-compiled by scripts/test-windows).
// Skipped unless SPAWNHOST_TEST_WINE=1 (`npm test` does not need wine; CI runs this file
// in its own step, bash scripts/test-windows); with it, a missing wine or .exe fails.
import { strict as assert } from "node:assert";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { ProcessHost } from "spawnhost";
import { once, readAll } from "./support/modes.js";
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

  test("arguments reach the program exactly, quoted by the C runtime's rules", async () => {
    const args = ["plain", "with space", 'quote"inside', "back\\slash", "trailing\\", 'bs before \\"quote',
      "", "tab\there", "two\\\\", 'end\\\\"', "unicode ☃ é 😀", "a\\\\b c", " "];
    const { stdout } = await run(["argv", ...args]);
    const got = JSON.parse(stdout);
    assert.deepEqual(got.argv, args);
    assert.equal(got.cmdline, [fixture, "argv", ...args].map(msvcQuote).join(" "));
  });

  test("windowsVerbatimArguments passes the command line unquoted", async () => {
    const { stdout } = await run(["argv", '"a b"', "c\\d"], { windowsVerbatimArguments: true });
    const got = JSON.parse(stdout);
    assert.deepEqual(got.argv, ["a b", "c\\d"]);
    assert.ok(got.cmdline.endsWith(' argv "a b" c\\d'), got.cmdline);
  });

  test("argv0 is the command line's first word", async () => {
    const { stdout } = await run(["argv", "x"], { argv0: "my name" });
    assert.ok(JSON.parse(stdout).cmdline.startsWith('"my name" argv x'));
  });

  test("the environment is what was given, sorted without case, plus TEMP from the helper", async () => {
    const given = { ...env, zeta: "1", Alpha: "2", beta: "ünïcode", MIXED_case: "x=y" };
    const { stdout } = await run(["env"], { env: given });
    const lines = stdout.trimEnd().split("\n").filter((l) => !l.startsWith("="));
    // Wine itself rewrites SystemRoot, SystemDrive and WINE* in every new process,
    // appending them after the block it was given: only the other names show our order.
    const names = lines.map((l) => l.slice(0, l.indexOf("="))).filter((n) => !/^(WINE|SYSTEMROOT$|SYSTEMDRIVE$)/i.test(n));
    const sorted = [...names].sort((a, b) => (a.toUpperCase() < b.toUpperCase() ? -1 : a.toUpperCase() > b.toUpperCase() ? 1 : 0));
    assert.deepEqual(names, sorted, "block order");
    for (const [k, v] of Object.entries(given)) assert.ok(lines.includes(`${k}=${v}`), `${k}=${v} in ${lines}`);
    assert.ok(names.includes("TEMP"), "TEMP added from the helper's environment, as libuv does");
  });

  test("cwd", async () => {
    const { stdout } = await run(["cwd"], { cwd: winPath(scratch) });
    assert.equal(stdout.trim().toLowerCase(), winPath(scratch).toLowerCase());
  });

  test("a program and a cwd whose paths hold spaces and non-ASCII letters", async () => {
    const dir = join(scratch, "dïr ☃ x");
    mkdirSync(dir);
    copyFileSync(fixtureExe, join(dir, "fix ture.exe"));
    const program = winPath(join(dir, "fix ture.exe"));
    const { stdout } = await host.execFile(program, ["argv", "ok"], { env, cwd: winPath(dir) });
    const got = JSON.parse(stdout);
    assert.deepEqual(got.argv, ["ok"]);
    assert.equal(got.cmdline, `"${program}" argv ok`);
    assert.equal((await host.execFile(program, ["cwd"], { env, cwd: winPath(dir) })).stdout.trim().toLowerCase(), winPath(dir).toLowerCase());
  });

  test("a missing cwd or program fails like Node: ENOENT, syscall spawn", async () => {
    await assert.rejects(run(["cwd"], { cwd: winPath(join(scratch, "nope")) }), { code: "ENOENT" });
    await assert.rejects(host.execFile("no-such-program-here", [], { env }), { code: "ENOENT", syscall: "spawn no-such-program-here" });
  });

  test("PATH lookup appends .com/.exe and finds programs by bare name", async () => {
    const { stdout } = await host.execFile("cmd", ["/c", "echo", "found"], { env });
    assert.equal(stdout, "found\r\n");
  });

  test("exit codes", async () => {
    assert.deepEqual(await run(["exit", "0"]), { stdout: "", stderr: "" });
    for (const code of [1, 3, 255, 1000]) await assert.rejects(run(["exit", String(code)]), { code });
  });

  test("stdout and stderr are kept apart", async () => {
    assert.deepEqual(await run(["err", "to stderr"]), { stdout: "", stderr: "to stderr" });
  });

  test("large output arrives whole, through execFile and through flow-controlled spawn", async () => {
    const size = 6 * 1024 * 1024;
    const { stdout } = await run(["out", String(size)], { maxBuffer: 16 * 1024 * 1024, encoding: "buffer" });
    assert.equal(stdout.length, size);
    assert.equal(stdout.subarray(0, 27).toString(), "abcdefghijklmnopqrstuvwxyza");
    assert.equal(stdout[size - 1], "a".charCodeAt(0) + (((size - 1) % 65536) % 26));  // 64 KiB blocks
    const child = await host.spawn(fixture, ["out", String(size)], { env });
    const [text] = await Promise.all([readAll(child.stdout), once(child, "close")]);
    assert.equal(text.length, size);
  });

  test("maxBuffer kills the program and keeps exactly maxBuffer bytes", async () => {
    await assert.rejects(run(["out", "1000000"], { maxBuffer: 1000 }), (error) => error.stdout.length === 1000 && error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER");
  });

  test("stdin: execFile input, and spawn writes with end", async () => {
    assert.equal((await run(["cat"], { input: "piped in\n" })).stdout, "piped in\n");
    const child = await host.spawn(fixture, ["cat"], { env });
    const text = readAll(child.stdout);
    for (let i = 0; i < 100; i++) child.stdin.write(`line ${i}\n`);
    child.stdin.end();
    const [code] = await once(child, "close");
    assert.equal(code, 0);
    assert.equal((await text).split("\n").length, 101);
  });

  test("kill() ends the program as Node does on Windows: signal reported, no exit code", async () => {
    for (const signal of ["SIGTERM", "SIGKILL", "SIGINT"]) {
      const child = await host.spawn(fixture, ["sleep", "30000"], { env, stdio: "ignore" });
      const t0 = Date.now();
      assert.equal(child.kill(signal), true);
      const [code, got] = await once(child, "exit");
      assert.deepEqual([code, got], [null, signal]);
      assert.ok(Date.now() - t0 < 5000);
    }
  });

  test("timeout kills with killSignal and says so", async () => {
    const t0 = Date.now();
    await assert.rejects(run(["sleep", "30000"], { timeout: 300 }), { timedOut: true, killed: true, signal: "SIGTERM", code: null });
    assert.ok(Date.now() - t0 < 5000);
  });

  test("concurrent launches: many at once, each child holding only its own pipes", async () => {
    // Sleepers launched alongside: if one inherited another child's pipe end, that
    // child's output would not end until the sleeper does (10 s), and this test's
    // 5 s budget would be blown.
    const sleepers = await Promise.all(Array.from({ length: 6 }, () => host.spawn(fixture, ["sleep", "10000"], { env })));
    const t0 = Date.now();
    const runs = await Promise.all(Array.from({ length: 24 }, (_, i) => Promise.all([
      run(["cat"], { input: `child ${i}\n` }),
      host.spawn(fixture, ["sleep", "10000"], { env }).then((c) => { sleepers.push(c); }),
    ])));
    runs.forEach(([r], i) => assert.equal(r.stdout, `child ${i}\n`));
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    for (const c of sleepers) c.kill();
    await Promise.all(sleepers.map((c) => (c.exitCode !== null || c.signalCode !== null ? null : once(c, "close"))));
  });

  test("shell commands run through cmd.exe /d /s /c, as child_process does on Windows", async () => {
    const { stdout } = await host.exec("echo %GREETING% && echo second", { env: { ...env, GREETING: "hi there" } });
    assert.equal(stdout, "hi there \r\nsecond\r\n");
    await assert.rejects(host.exec("exit /b 4", { env }), { code: 4 });
  });

  test(".bat and .cmd files are refused without a shell (EINVAL, CVE-2024-27980) and run with one", async () => {
    const bat = join(scratch, "script.BAT");
    writeFileSync(bat, "@echo from batch %1\r\n");
    await assert.rejects(host.execFile(winPath(bat), ["x"], { env }), { code: "EINVAL" });
    await assert.rejects(host.execFile(winPath(bat.replace(".BAT", ".cmd")), [], { env }), { code: "EINVAL" });
    const { stdout } = await host.execFile(`"${winPath(bat)}"`, ["arg"], { env, shell: true });
    assert.equal(stdout, "from batch arg\r\n");
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

  test("removeTree deletes read-only files; a tree already gone is fine", async () => {
    const tree = join(scratch, "tree");
    mkdirSync(join(tree, "a/b"), { recursive: true });
    writeFileSync(join(tree, "a/b/file"), "x");
    writeFileSync(join(tree, "ro"), "x");
    const attrib = await host.execFile("cmd", ["/c", "attrib", "+r", winPath(join(tree, "ro"))], { env });
    assert.equal(attrib.stderr, "");
    await host.removeTree(winPath(tree));
    assert.equal(existsSync(tree), false);
    await host.removeTree(winPath(tree));
  });

  test("removeTree of a tree in use fails with EBUSY and leaves it in place", async () => {
    const tree = join(scratch, "busy");
    mkdirSync(join(tree, "open"), { recursive: true });
    writeFileSync(join(tree, "open/file"), "x");
    const holder = await host.spawn(fixture, ["hold", winPath(join(tree, "open/file"))], { env });
    await once(holder.stdout, "data");
    await assert.rejects(host.removeTree(winPath(tree)), { code: "EBUSY", syscall: "unlink" });
    assert.equal(existsSync(join(tree, "open/file")), true);
    holder.stdin.end();
    await once(holder, "close");
    // A directory that is a running process's cwd cannot be removed either. The child
    // opens its cwd while it starts, after CreateProcess returns: an echo through it
    // shows it has. (The failed removal above went on as far as it could, like rm -rf,
    // so the directory is made now.)
    mkdirSync(join(tree, "cwd"));
    const sitter = await host.spawn(fixture, ["cat"], { env, cwd: winPath(join(tree, "cwd")) });
    assert.equal(typeof sitter.pid, "number");
    sitter.stdin.write("up\n");
    await once(sitter.stdout, "data");
    await assert.rejects(host.removeTree(winPath(tree)), { code: "EBUSY", syscall: "rmdir" });
    sitter.stdin.end();
    await once(sitter, "close");
    await host.removeTree(winPath(tree));
    assert.equal(existsSync(tree), false);
  });

  test("stdio inherit under wine: EBADF (Node's descriptors 3-5 do not reach a Windows program from Linux)", async () => {
    // On Windows, Node hands them to the helper through the C runtime's descriptor
    // table; wine started from Linux Node has no such table. Documented in the README.
    await assert.rejects(host.spawn(fixture, ["exit", "0"], { env, stdio: ["ignore", "inherit", "ignore"] }), /EBADF/);
  });

  test("non-detached children die when the helper is killed (job object); detached ones live on", async () => {
    const pidFile = join(scratch, "helper.pid");
    process.env.SPAWNHOST_WINE_PIDFILE = pidFile;
    const doomed = new ProcessHost({ helperPath: wrapper, helperPlatform: "win32", fallback: "error", restart: false });
    const [inJob, grandchild, detached] = ["in-job", "grandchild", "detached"].map((n) => join(scratch, n));
    const a = await doomed.spawn(fixture, ["touch-after", "3000", winPath(inJob)], { env, stdio: "ignore" });
    delete process.env.SPAWNHOST_WINE_PIDFILE;  // read when the helper started, at the first call
    const b = await doomed.spawn(fixture, ["spawn-touch", "3000", winPath(grandchild)], { env, stdio: ["ignore", "pipe", "ignore"] });
    const c = await doomed.spawn(fixture, ["touch-after", "3000", winPath(detached)], { env, stdio: "ignore", detached: true });
    await once(b.stdout, "data");  // the grandchild exists
    for (const child of [a, b, c]) child.on("error", () => {});
    process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL");
    await new Promise((r) => setTimeout(r, 6000));
    assert.equal(existsSync(detached), true, "the detached child outlived the helper (the test can tell)");
    assert.equal(existsSync(inJob), false, "a child survived the helper's death");
    assert.equal(existsSync(grandchild), false, "a grandchild survived the helper's death");
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
