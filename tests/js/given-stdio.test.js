// Streams of Node's as a child's stdio: another child's stdout as the
// next one's stdin, one stdin shared by two writers, a socket. node:child_process hands
// the stream's descriptor to its child; spawnhost sends it to the helper first, on the
// helper's IPC channel, and the helper gives it to the child. Each behaviour is checked
// on node:child_process itself, the drop-in and both ProcessHost modes, same run.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import * as childProcess from "node:child_process";
import { writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as dropIn from "spawnhost/child_process";
import { modes, hostFor, once, readAll } from "./support/modes.js";
import { openSockets } from "./support/procfs.js";
import { scratchDir } from "./support/scratch.js";

const takesDescriptors = process.platform !== "win32" && process.env.SPAWNHOST_STREAMS !== "relay";
const dir = scratchDir("spawnhost-given-");

// Each face spawns synchronously-looking: `spawn` returns the child (awaited for hosts).
const faces = [
  { name: "node:child_process", spawn: async (file, args, options) => childProcess.spawn(file, args, options) },
  ...(modes().includes("helper") && takesDescriptors ? [{ name: "spawnhost/child_process", dropIn: true, spawn: async (file, args, options) => dropIn.spawn(file, args, options) }] : []),
  ...modes().filter((mode) => mode === "inline" || takesDescriptors).map((mode) => {
    const host = hostFor(mode);
    return { name: `ProcessHost (${mode})`, host, spawn: (file, args, options) => host.spawn(file, args, options) };
  }),
];
after(() => Promise.all(faces.map((face) => face.host?.shutdown())));

describe("a stream of Node's as a child's stdio", () => {
  for (const face of faces) {
    test(`${face.name}: cat | grep | wc -c through the children's own stdout counts every byte, and no call falls back`, async (t) => {
      const file = join(dir, "lines.txt");
      writeFileSync(file, `${"x".repeat(1023)}\n`.repeat(1024));
      const before = dropIn.stats();
      const cat = await face.spawn("cat", [file], {});
      // A launch that fails leaves none behind holding this file open.
      t.after(() => cat.kill());
      const grep = await face.spawn("grep", ["x"], { stdio: [cat.stdout, "pipe", "pipe"] });
      const wc = await face.spawn("wc", ["-c"], { stdio: [grep.stdout, "pipe", "pipe"] });
      const counted = readAll(wc.stdout);
      const codes = Promise.all([cat, grep, wc].map((child) => once(child, "exit")));
      const errors = [grep, wc].map((child) => readAll(child.stderr));
      assert.equal((await counted).trim(), String(1024 * 1024));
      assert.deepEqual(await codes, [[0, null], [0, null], [0, null]]);
      assert.deepEqual(await Promise.all(errors), ["", ""]);
      if (face.dropIn) assert.equal(dropIn.stats().fallback, before.fallback, JSON.stringify(dropIn.stats().fallbackReasons));
    });

    test(`${face.name}: a reader given an empty socket waits for the data (blocking, as libuv makes it), not EAGAIN`, async () => {
      const late = await face.spawn("sh", ["-c", "sleep 0.3; echo late"], {});
      const reader = await face.spawn("cat", [], { stdio: [late.stdout, "pipe", "pipe"] });
      const [out, err, closed] = await Promise.all([readAll(reader.stdout), readAll(reader.stderr), once(reader, "close")]);
      assert.deepEqual({ out, err, closed }, { out: "late\n", err: "", closed: [0, null] });
    });

    test(`${face.name}: one child's stdin as the stdout of two others: both writes reach it`, async () => {
      const sink = await face.spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
      const first = await face.spawn("echo", ["hello"], { stdio: ["ignore", sink.stdin, "inherit"] });
      await once(first, "exit");
      const second = await face.spawn("echo", ["world"], { stdio: ["ignore", sink.stdin, "inherit"] });
      await once(second, "exit");
      const out = readAll(sink.stdout);
      sink.stdin.end("!\n");
      assert.equal(await out, "hello\nworld\n!\n");
    });

    test(`${face.name}: the stream given stops reading in the parent; once the reader is gone, the parent reads what follows`, async () => {
      const source = await face.spawn("cat", [], { stdio: ["pipe", "pipe", "inherit"] });
      const head = await face.spawn("head", ["-n1"], { stdio: [source.stdout, "pipe", "inherit"] });
      const [firstLine, headExit, sourceClose] = [readAll(head.stdout), once(head, "exit"), once(source, "close")];
      source.stdin.write("one\n");
      assert.equal(await firstLine, "one\n");
      await headExit;
      source.stdin.end("two\n");
      // Had the parent read too, "one" would be here, or head would have waited for it.
      assert.equal(await readAll(source.stdout), "two\n");
      assert.deepEqual(await sourceClose, [0, null]);
    });

    test(`${face.name}: a net.Socket as a child's stdout: what the child writes reaches the peer`, async () => {
      const path = join(dir, `peer-${face.name.replace(/\W+/g, "-")}.sock`);
      const server = net.createServer();
      await new Promise((resolve) => server.listen(path, resolve));
      const accepted = new Promise((resolve) => server.once("connection", resolve));
      const client = net.connect(path);
      const socket = await accepted;
      const received = readAll(client);
      const child = await face.spawn("echo", ["through the socket"], { stdio: ["ignore", socket, "inherit"] });
      await once(child, "close");
      socket.end();
      assert.equal(await received, "through the socket\n");
      server.close();
    });
  }

  test("a destroyed socket as stdio: the drop-in throws node:child_process's error", { skip: !faces.some((face) => face.dropIn) && "no drop-in face here" }, async () => {
    const cat = childProcess.spawn("cat");
    cat.stdout.destroy();
    const thrown = (spawn) => { try { spawn("true", [], { stdio: [cat.stdout, "pipe", "pipe"] }); } catch (error) { return { name: error.name, code: error.code, message: error.message }; } };
    assert.deepEqual(thrown(dropIn.spawn), thrown(childProcess.spawn));
    assert.equal(thrown(childProcess.spawn).code, "ERR_INVALID_ARG_VALUE");
    cat.stdin.end();
    await once(cat, "close");
  });

  test("the helper keeps no copy of a descriptor Node gave it once the child has it", { skip: !(modes().includes("helper") && takesDescriptors) && "no helper that takes descriptors here" }, async () => {
    const host = hostFor("helper");
    const descriptors = openSockets;
    const warm = await host.spawn("true", [], { stdio: "ignore" });
    await once(warm, "close");
    const helper = host.stats().helperPid;
    const before = descriptors(helper);
    // A source that outlives the launches: node:child_process drains its stdout at its
    // exit (docs/drop-in.md, a stream of a node:child_process child).
    const source = childProcess.spawn("sleep", ["30"]);
    const readers = await Promise.all([0, 1].map(() => host.spawn("sleep", ["0.5"], { stdio: [source.stdout, "ignore", "ignore"] })));
    await sleep(200); // the readers run: their launches are done
    assert.equal(descriptors(helper), before, "the helper still holds a descriptor it was given");
    await Promise.all(readers.map((reader) => once(reader, "close")));
    source.kill();
    await host.shutdown();
  });
});

describe("where the helper takes no descriptors", { skip: takesDescriptors && "this helper takes descriptors" }, () => {
  test("the drop-in runs the call on node:child_process, counted with its reason; ProcessHost refuses it", async () => {
    const source = childProcess.spawn("echo", ["x"]);
    const before = dropIn.stats();
    const reader = dropIn.spawn("cat", [], { stdio: [source.stdout, "pipe", "pipe"] });
    assert.equal(await readAll(reader.stdout), "x\n");
    const reasons = dropIn.stats().fallbackReasons;
    assert.equal(reasons["stdio[0] is a Socket (this helper takes no descriptors)"] - (before.fallbackReasons["stdio[0] is a Socket (this helper takes no descriptors)"] ?? 0), 1);
    if (modes().includes("helper")) {
      const host = hostFor("helper");
      await assert.rejects(async () => host.spawn("cat", [], { stdio: [source.stdout, "pipe", "pipe"] }), { code: "ERR_INVALID_ARG_VALUE", message: /streams need a local helper that takes descriptors/ });
      await host.shutdown();
    }
  });
});
