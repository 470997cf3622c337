// ProcessHost on Windows Node with the Windows helper: what the helper does, shown by
// real Windows children (the mingw fixture, cmd.exe). Moved from
// tests/js/windows-wine.test.js, where Linux Node drove the helper through wine; here
// Node itself is Windows', as a user's is.
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ProcessHost } from "spawnhost";
import { env, fixture, helperPath, msvcQuote, once, readAll, runNode, scratchDir } from "./support/win.js";

describe("ProcessHost with the Windows helper", { timeout: 120_000 }, () => {
  let host;
  let scratch;
  before(() => {
    host = new ProcessHost({ helperPath, fallback: "error", maxLaunchThreads: 4 });
    scratch = scratchDir("spawnhost-winnode-");
  });
  after(() => host?.shutdown());

  const run = (args, options = {}) => host.execFile(fixture, args, { env, ...options });

  test("the helper runs, and says it is the Windows one", async () => {
    const info = await host.info();
    assert.equal(info.mode, "helper");
    assert.equal(info.os, "win32");
    assert.equal(host.stats().helperPid > 0, true);
  });

  test("arguments reach the program exactly, quoted by the C runtime's rules", async () => {
    const args = ["plain", "with space", 'quote"inside', "back\\slash", "trailing\\", 'bs before \\"quote',
      "", "tab\there", "two\\\\", 'end\\\\"', "unicode ☃ é 😀", "a\\\\b c", " "];
    const got = JSON.parse((await run(["argv", ...args])).stdout);
    assert.deepEqual(got.argv, args);
    assert.equal(got.cmdline, [fixture, "argv", ...args].map(msvcQuote).join(" "));
  });

  test("windowsVerbatimArguments passes the command line unquoted", async () => {
    const got = JSON.parse((await run(["argv", '"a b"', "c\\d"], { windowsVerbatimArguments: true })).stdout);
    assert.deepEqual(got.argv, ["a b", "c\\d"]);
    assert.ok(got.cmdline.endsWith(' argv "a b" c\\d'), got.cmdline);
  });

  test("argv0 is the command line's first word", async () => {
    assert.ok(JSON.parse((await run(["argv", "x"], { argv0: "my name" })).stdout).cmdline.startsWith('"my name" argv x'));
  });

  test("the environment is what was given, sorted without case, plus TEMP from the helper", async () => {
    const given = { ...env, zeta: "1", Alpha: "2", beta: "ünïcode", MIXED_case: "x=y" };
    const lines = (await run(["env"], { env: given })).stdout.trimEnd().split("\n").filter((l) => !l.startsWith("="));
    // Wine rewrites SystemRoot, SystemDrive and WINE* in every new process, after the block.
    const names = lines.map((l) => l.slice(0, l.indexOf("="))).filter((n) => !/^(WINE|SYSTEMROOT$|SYSTEMDRIVE$)/i.test(n));
    const upper = (s) => s.toUpperCase();
    assert.deepEqual(names, [...names].sort((a, b) => (upper(a) < upper(b) ? -1 : upper(a) > upper(b) ? 1 : 0)), "block order");
    for (const [k, v] of Object.entries(given)) assert.ok(lines.includes(`${k}=${v}`), `${k}=${v} in ${lines}`);
    assert.ok(names.includes("TEMP"), "TEMP added from the helper's environment, as libuv does");
  });

  test("names that differ only in case: the child gets the one child_process keeps (the first in code-unit order)", async () => {
    const lines = (await run(["env"], { env: { ...env, duplicate: "lowercase", DUPLICATE: "uppercase", Path_x: "b", PATH_X: "a" } })).stdout.split("\n");
    assert.ok(lines.includes("DUPLICATE=uppercase"), lines.join("|"));
    assert.ok(!lines.some((l) => /^duplicate=/i.test(l) && l !== "DUPLICATE=uppercase"), lines.join("|"));
    assert.ok(lines.includes("PATH_X=a") && !lines.includes("Path_x=b"), lines.join("|"));
  });

  test("cwd, and a program and cwd whose paths hold spaces and non-ASCII letters", async () => {
    assert.equal((await run(["cwd"], { cwd: scratch })).stdout.trim().toLowerCase(), scratch.toLowerCase());
    const dir = join(scratch, "dïr ☃ x");
    mkdirSync(dir);
    const program = join(dir, "fix ture.exe");
    copyFileSync(fixture, program);
    const got = JSON.parse((await host.execFile(program, ["argv", "ok"], { env, cwd: dir })).stdout);
    assert.deepEqual(got.argv, ["ok"]);
    assert.equal(got.cmdline, `"${program}" argv ok`);
    assert.equal((await host.execFile(program, ["cwd"], { env, cwd: dir })).stdout.trim().toLowerCase(), dir.toLowerCase());
  });

  test("a missing cwd or program fails like Node: ENOENT, syscall spawn", async () => {
    await assert.rejects(run(["cwd"], { cwd: join(scratch, "nope") }), { code: "ENOENT" });
    await assert.rejects(host.execFile("no-such-program-here", [], { env }), { code: "ENOENT", syscall: "spawn no-such-program-here" });
  });

  test("PATH lookup appends .com/.exe and finds programs by bare name", async () => {
    assert.equal((await host.execFile("cmd", ["/c", "echo", "found"], { env })).stdout, "found\r\n");
  });

  test("exit codes; stdout and stderr kept apart", async () => {
    assert.deepEqual(await run(["exit", "0"]), { stdout: "", stderr: "" });
    for (const code of [1, 3, 255, 1000]) await assert.rejects(run(["exit", String(code)]), { code });
    assert.deepEqual(await run(["err", "to stderr"]), { stdout: "", stderr: "to stderr" });
  });

  test("large output arrives whole, through execFile and through flow-controlled spawn", async () => {
    const size = 6 * 1024 * 1024;
    const { stdout } = await run(["out", String(size)], { maxBuffer: 16 * 1024 * 1024, encoding: "buffer" });
    assert.equal(stdout.length, size);
    assert.equal(stdout.subarray(0, 27).toString(), "abcdefghijklmnopqrstuvwxyza");
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
    assert.deepEqual(await once(child, "close"), [0, null]);
    assert.equal((await text).split("\n").length, 101);
  });

  test("kill() ends the program as Node does on Windows: INT, QUIT, KILL, TERM reported as sent, every other signal as SIGKILL", async () => {
    const expected = { SIGTERM: "SIGTERM", SIGKILL: "SIGKILL", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGHUP: "SIGKILL", SIGBREAK: "SIGKILL", SIGWINCH: "SIGKILL" };
    for (const [signal, reported] of Object.entries(expected)) {
      const child = await host.spawn(fixture, ["sleep", "30000"], { env, stdio: "ignore" });
      const t0 = Date.now();
      assert.equal(child.kill(signal), true);
      assert.deepEqual(await once(child, "exit"), [null, reported], signal);
      assert.ok(Date.now() - t0 < 5000);
    }
  });

  test("timeout kills with killSignal and says so", async () => {
    const t0 = Date.now();
    await assert.rejects(run(["sleep", "30000"], { timeout: 300 }), { timedOut: true, killed: true, signal: "SIGTERM", code: null });
    assert.ok(Date.now() - t0 < 5000);
  });

  test("uid or gid: ENOTSUP, as libuv's spawn on Windows, before anything starts", async () => {
    for (const ids of [{ uid: 0 }, { gid: 0 }]) {
      await assert.rejects(host.spawn(fixture, ["exit", "0"], { env, ...ids }), { code: "ENOTSUP", syscall: "spawn", message: "spawn ENOTSUP" });
      await assert.rejects(run(["exit", "0"], ids), { code: "ENOTSUP", syscall: "spawn" });
    }
  });

  test("concurrent launches: many at once, each child holding only its own pipes", async () => {
    // If a child inherited another's pipe end, its output would not end until the
    // sleeper holding it does (10 s), past this test's 5 s budget.
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
    assert.equal((await host.exec("echo %GREETING% && echo second", { env: { ...env, GREETING: "hi there" } })).stdout, "hi there \r\nsecond\r\n");
    await assert.rejects(host.exec("exit /b 4", { env }), { code: 4 });
  });

  test(".bat and .cmd files are refused without a shell (EINVAL, CVE-2024-27980) and run with one", async () => {
    const bat = join(scratch, "script.BAT");
    writeFileSync(bat, "@echo from batch %1\r\n");
    await assert.rejects(host.execFile(bat, ["x"], { env }), { code: "EINVAL" });
    await assert.rejects(host.execFile(bat.replace(".BAT", ".cmd"), [], { env }), { code: "EINVAL" });
    assert.equal((await host.execFile(`"${bat}"`, ["arg"], { env, shell: true })).stdout, "from batch arg\r\n");
  });

  test("removeTree deletes read-only files; a tree already gone is fine", async () => {
    const tree = join(scratch, "tree");
    mkdirSync(join(tree, "a/b"), { recursive: true });
    writeFileSync(join(tree, "a/b/file"), "x");
    writeFileSync(join(tree, "ro"), "x");
    assert.equal((await host.execFile("cmd", ["/c", "attrib", "+r", join(tree, "ro")], { env })).stderr, "");
    await host.removeTree(tree);
    assert.equal(existsSync(tree), false);
    await host.removeTree(tree);
  });

  test("removeTree of a tree in use fails with EBUSY and leaves it in place", async () => {
    const tree = join(scratch, "busy");
    mkdirSync(join(tree, "open"), { recursive: true });
    writeFileSync(join(tree, "open/file"), "x");
    const holder = await host.spawn(fixture, ["hold", join(tree, "open/file")], { env });
    await once(holder.stdout, "data");
    await assert.rejects(host.removeTree(tree), { code: "EBUSY", syscall: "unlink" });
    assert.equal(existsSync(join(tree, "open/file")), true);
    holder.stdin.end();
    await once(holder, "close");
    // A running process's cwd cannot be removed either; the child opens it as it starts,
    // after CreateProcess returns: an echo through it shows it has.
    mkdirSync(join(tree, "cwd"));
    const sitter = await host.spawn(fixture, ["cat"], { env, cwd: join(tree, "cwd") });
    sitter.stdin.write("up\n");
    await once(sitter.stdout, "data");
    await assert.rejects(host.removeTree(tree), { code: "EBUSY", syscall: "rmdir" });
    sitter.stdin.end();
    await once(sitter, "close");
    await host.removeTree(tree);
    assert.equal(existsSync(tree), false);
  });

  test("stdio inherit: the child writes to Node's own stdout and stderr (which Linux Node under wine cannot give)", async () => {
    // A Node process of its own, whose stdout and stderr this test reads.
    const script = `import { ProcessHost } from "spawnhost";
      const host = new ProcessHost({ helperPath: process.env.SPAWNHOST_HELPER_PATH, fallback: "error" });
      const closed = (child) => new Promise((resolve) => child.on("close", resolve));
      await closed(await host.spawn(process.env.SPAWNHOST_WIN_FIXTURE, ["err", "to inherited stderr"], { stdio: ["ignore", "inherit", "inherit"] }));
      await closed(await host.spawn(process.env.SPAWNHOST_WIN_FIXTURE, ["argv", "to stdout"], { stdio: "inherit" }));
      await host.shutdown();`;
    const { code, stdout, stderr } = await runNode(["--input-type=module", "-e", script], { env: { ...process.env, SPAWNHOST_WIN_FIXTURE: fixture } });
    assert.equal(code, 0, stderr);
    assert.equal(stderr, "to inherited stderr");
    assert.deepEqual(JSON.parse(stdout).argv, ["to stdout"]);
  });

  test("non-detached children die when the helper is killed (job object); detached ones live on", async () => {
    const doomed = new ProcessHost({ helperPath, fallback: "error", restart: false });
    const [inJob, grandchild, detached] = ["in-job", "grandchild", "detached"].map((n) => join(scratch, n));
    const a = await doomed.spawn(fixture, ["touch-after", "3000", inJob], { env, stdio: "ignore" });
    const b = await doomed.spawn(fixture, ["spawn-touch", "3000", grandchild], { env, stdio: ["ignore", "pipe", "ignore"] });
    const c = await doomed.spawn(fixture, ["touch-after", "3000", detached], { env, stdio: "ignore", detached: true });
    await once(b.stdout, "data");  // the grandchild exists
    for (const child of [a, b, c]) child.on("error", () => {});
    process.kill(doomed.stats().helperPid);  // TerminateProcess: no shutdown of its own
    await new Promise((r) => setTimeout(r, 6000));
    assert.equal(existsSync(detached), true, "the detached child outlived the helper (the test can tell)");
    assert.equal(existsSync(inJob), false, "a child survived the helper's death");
    assert.equal(existsSync(grandchild), false, "a grandchild survived the helper's death");
    await doomed.shutdown().catch(() => {});
  });
});
