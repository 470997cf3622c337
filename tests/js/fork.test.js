// fork(), the "ipc" stdio entry and HostChild's channel (send, message, disconnect),
// run against every mode in SPAWNHOST_TEST_MODES.
import { describe, test, after } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { modes, hostFor, once, readAll } from "./support/modes.js";
import { ownsForkChannels } from "../../js/src/helper/process.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-child.mjs", import.meta.url));
const THROWS = fileURLToPath(new URL("../fixtures/ipc-throws.mjs", import.meta.url));

/** Records the channel's and the process's events, in order, until `close`. */
function eventsOf(child) {
  const events = [];
  child.on("message", (message) => events.push(["message", message]));
  child.on("disconnect", () => events.push(["disconnect"]));
  child.on("exit", (code, signal) => events.push(["exit", code, signal]));
  return once(child, "close").then((args) => [...events, ["close", ...args]]);
}

/** child.send as a promise of its callback. */
function sent(child, message) {
  return new Promise((resolve, reject) => child.send(message, (error) => (error ? reject(error) : resolve())));
}

for (const mode of modes()) {
  describe(`fork (${mode})`, () => {
    const host = hostFor(mode);
    after(() => host.shutdown());

    test("a message goes to the child and its answer comes back", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      assert.equal(child.connected, true);
      child.send({ hello: "child", list: [1, "two", null] });
      const [message] = await once(child, "message");
      assert.deepEqual(message, { hello: "child", list: [1, "two", null] });
      child.disconnect();
      await once(child, "close");
    });

    test("the send callback fires with null once the message was written", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      await sent(child, "written");
      child.disconnect();
      await once(child, "close");
    });

    test("a child that sends and exits at once: every message, then disconnect, exit, close", async () => {
      const child = await host.fork(CHILD, ["send-exit", "50", "3"]);
      const events = await eventsOf(child);
      assert.deepEqual(events, [
        ...Array.from({ length: 50 }, (_, i) => ["message", { i }]),
        ["disconnect"], ["exit", 3, null], ["close", 3, null],
      ]);
    });

    test("messages wait for a 'message' listener added later, as with child_process", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      child.send("early");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [message] = await once(child, "message");
      assert.equal(message, "early");
      child.disconnect();
      await once(child, "close");
    });

    test("the child's process.disconnect() emits disconnect once and ends connected", async () => {
      const child = await host.fork(CHILD, ["disconnect"], { silent: true });
      const output = readAll(child.stdout);
      const events = await eventsOf(child);
      assert.deepEqual(events, [["message", "bye"], ["disconnect"], ["exit", 0, null], ["close", 0, null]]);
      assert.equal(child.connected, false);
      assert.equal(await output, "child connected=false\n");
    });

    test("the parent's disconnect() reaches the child, which then exits; close follows", async () => {
      const child = await host.fork(CHILD, ["await-disconnect"], { silent: true });
      const output = readAll(child.stdout);
      await once(child, "message");
      const events = eventsOf(child);
      child.disconnect();
      assert.equal(child.connected, false);
      // child_process would never emit close here (nodejs/node#19433); spawnhost does.
      assert.deepEqual(await events, [["disconnect"], ["exit", 0, null], ["close", 0, null]]);
      assert.equal(await output, "child saw disconnect\n");
    });

    test("messages sent right before disconnect() still reach the child (helper); child_process may drop some", async () => {
      const child = await host.fork(CHILD, ["count-until-disconnect"], { silent: true });
      const output = readAll(child.stdout);
      // Node drops what reaches a child before its module has loaded, so wait until it listens.
      await once(child, "message");
      for (let i = 0; i < 20; i++) child.send("x".repeat(10_000));
      child.disconnect();
      const [, count, characters] = (await output).match(/^(\d+) messages, (\d+) characters\n$/);
      if (mode === "helper" && !ownsForkChannels()) {
        // A relaying helper writes queued sends before it closes the channel.
        assert.deepEqual([Number(count), Number(characters)], [20, 200_000]);
      } else {
        // Inline, and a channel of Node's own, is child_process: Node 20 mostly delivers
        // all 20, Node 22 and later drop the ones still queued at disconnect(). What
        // arrives is whole, in order.
        assert.ok(Number(count) <= 20 && Number(characters) === Number(count) * 10_000, `${count} messages, ${characters} characters`);
      }
      await once(child, "close");
    });

    test("send() after disconnect reports ERR_IPC_CHANNEL_CLOSED to the callback and returns false", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      child.disconnect();
      const error = await new Promise((resolve) => assert.equal(child.send("late", resolve), false));
      assert.equal(error.code, "ERR_IPC_CHANNEL_CLOSED");
      await once(child, "close");
    });

    test("disconnect() twice emits ERR_IPC_DISCONNECTED", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      child.disconnect();
      const errored = once(child, "error");
      child.disconnect();
      const [error] = await errored;
      assert.equal(error.code, "ERR_IPC_DISCONNECTED");
      await once(child, "close");
    });

    // Where the helper relays the channel (not Linux, SPAWNHOST_STREAMS=relay) handles
    // are refused instead: tests/js/ipc-handles.test.js.
    const relayed = mode === "helper" && !ownsForkChannels();
    test("send(message, handle) takes a net.Socket, as child_process does", { skip: relayed }, async () => {
      const child = await host.fork(CHILD, ["echo"]);
      const socket = new net.Socket();
      // A socket with no descriptor goes as the message alone (child_process's rule).
      assert.equal(typeof child.send("x", socket), "boolean");
      const [message, handle] = await once(child, "message");
      assert.deepEqual([message, handle], ["x", undefined]);
      child.disconnect();
      await once(child, "close");
    });

    test("send(message, handle) with something that is no handle throws child_process's ERR_INVALID_HANDLE_TYPE", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      assert.throws(() => child.send("x", { fake: "socket" }), { name: "TypeError", code: "ERR_INVALID_HANDLE_TYPE", message: "This handle type cannot be sent" });
      child.disconnect();
      await once(child, "close");
    });

    test("send()'s options must be an object, checked even once the channel is closed", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      const refused = { name: "TypeError", code: "ERR_INVALID_ARG_TYPE" };
      try {
        assert.throws(() => child.send("x", null, null), { ...refused, message: 'The "options" argument must be of type object. Received null' });
        assert.throws(() => child.send("x", null, "foo"), { ...refused, message: "The \"options\" argument must be of type object. Received type string ('foo')" });
        assert.throws(() => child.send("x", null, []), { ...refused, message: 'The "options" argument must be of type object. Received an instance of Array' });
      } finally {
        child.disconnect(); // also when an assertion failed: the echo child then ends
      }
      assert.throws(() => child.send("x", undefined, 0), refused);
      await once(child, "close");
    });

    test("a message JSON cannot represent throws at send() and nothing is sent", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      assert.throws(() => child.send({ big: 1n }), { name: "TypeError", message: /BigInt/ });
      const circular = {};
      circular.self = circular;
      assert.throws(() => child.send(circular), /circular/);
      child.send("after");
      const [message] = await once(child, "message");
      assert.equal(message, "after");
      child.disconnect();
      await once(child, "close");
    });

    test("a function cannot be sent with advanced serialization either", async () => {
      const child = await host.fork(CHILD, ["echo"], { serialization: "advanced" });
      assert.throws(() => child.send({ run() {} }), /could not be cloned/);
      child.disconnect();
      await once(child, "close");
    });

    test("undefined and symbols are refused like child_process refuses them", async () => {
      const child = await host.fork(CHILD, ["echo"]);
      assert.throws(() => child.send(undefined), { code: "ERR_MISSING_ARGS" });
      assert.throws(() => child.send(Symbol("s")), { code: "ERR_INVALID_ARG_TYPE" });
      child.disconnect();
      await once(child, "close");
    });

    test("advanced serialization carries Map, Set, BigInt, Date, typed arrays and nesting", async () => {
      const child = await host.fork(CHILD, ["echo"], { serialization: "advanced" });
      const value = {
        map: new Map([["a", 1], [2, { deep: [new Set([1, "x"])] }]]),
        set: new Set([1n, 2n ** 70n]),
        date: new Date(1700000000123),
        bytes: new Uint8Array([0, 1, 254, 255]),
        floats: new Float64Array([1.5, -0, Number.NaN]),
        ints: new Int32Array([-1, 2 ** 31 - 1]),
        nested: { list: [undefined, null, -0, Infinity, "ü日"], regexp: /a+b/giu },
      };
      child.send(value);
      const [echoed] = await once(child, "message");
      assert.deepStrictEqual(echoed, value);
      child.disconnect();
      await once(child, "close");
    });

    test("NODE_ messages are Node's own: emitted as 'internalMessage', never as 'message'", async () => {
      const child = await host.fork(CHILD, ["send-internal"]);
      const internal = [];
      child.on("internalMessage", (message) => internal.push(message));
      const events = await eventsOf(child);
      assert.deepEqual(events.filter(([name]) => name === "message"), [["message", { cmd: "NODE_", n: 1 }], ["message", { cmd: "user", n: 3 }]]);
      assert.deepEqual(internal, [{ cmd: "NODE_SPAWNHOST_TEST", n: 2 }]);
    });

    test("silent: true pipes the child's stdout and stderr", async () => {
      const child = await host.fork(CHILD, ["print"], { silent: true });
      const [stdout, stderr, [message]] = await Promise.all([readAll(child.stdout), readAll(child.stderr), once(child, "message")]);
      assert.deepEqual([stdout, stderr, message], ["to stdout\n", "to stderr\n", "printed"]);
      await once(child, "close");
    });

    test("execArgv is passed through before the module path", async () => {
      const child = await host.fork(CHILD, ["execargv"], { execArgv: ["--no-warnings", "--max-old-space-size=100"] });
      const [message] = await once(child, "message");
      assert.deepEqual(message, ["--no-warnings", "--max-old-space-size=100"]);
      assert.deepEqual(child.spawnargs, [process.execPath, "--no-warnings", "--max-old-space-size=100", CHILD, "execargv"]);
      await once(child, "close");
    });

    test("a module that throws at start exits 1 with Node's report on stderr", async () => {
      const child = await host.fork(THROWS, [], { silent: true });
      const stderr = readAll(child.stderr);
      const events = await eventsOf(child);
      assert.deepEqual(events, [["disconnect"], ["exit", 1, null], ["close", 1, null]]);
      assert.match(await stderr, /ipc-throws\.mjs:2\n.*\n.*\n\nError: thrown at start\n {4}at file:\/\/.*ipc-throws\.mjs:2:7/);
    });

    test("spawn() with stdio [.., .., .., 'ipc'] gives a non-Node program the channel as fd 3", async () => {
      const child = await host.spawn("sh", ["-c", "printf '{\"from\":\"sh\"}\\n' >&3; echo \"$NODE_CHANNEL_FD $NODE_CHANNEL_SERIALIZATION_MODE\""], {
        stdio: ["ignore", "pipe", "inherit", "ipc"],
      });
      // Listened for at once: the channel's end may come in the same turn as the
      // message, and `close` with it (as with child_process, whose channel end calls
      // maybeClose at once).
      const closed = once(child, "close");
      const [[message], stdout] = await Promise.all([once(child, "message"), readAll(child.stdout)]);
      assert.deepEqual(message, { from: "sh" });
      assert.equal(stdout, "3 json\n");
      await closed;
    });

    test("\"ipc\" anywhere but index 3 is a TypeError that says why", async () => {
      const error = await host.spawn("true", [], { stdio: ["pipe", "ipc", "pipe"] }).catch((e) => e);
      assert.equal(error.name, "TypeError");
      assert.match(error.message, /"stdio\[1\]" option must be at index 3 .*the helper gives the child its IPC channel as fd 3/);
    });

    test("a child without a channel is not connected and send() reports a closed channel", async () => {
      const child = await host.spawn("true");
      assert.equal(child.connected, false);
      const errored = once(child, "error");
      assert.equal(child.send("nobody"), false);
      assert.equal((await errored)[0].code, "ERR_IPC_CHANNEL_CLOSED");
      await once(child, "close");
    });
  });
}
