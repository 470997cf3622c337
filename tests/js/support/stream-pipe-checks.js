// The checks of who may connect to the Windows hand-over's pipe
// (js/src/helper/stream-pipes.js), as one describe block that two suites run on their
// own kind of pipe: tests/js/stream-pipes.test.js on a Unix socket, without wine (and
// the mutants with it), and tests/windows-node/stream-pipes.test.js on a named pipe.
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import net from "node:net";
import { describe, test } from "node:test";
import { StreamPipeInbox } from "../../../js/src/helper/stream-pipes.js";

/** The arguments of `emitter`'s next `event`. */
const once = (emitter, event) => new Promise((resolve) => emitter.once(event, (...args) => resolve(args)));

/** Each of `clients` is closed by the pipe within a few seconds, or the test fails. */
async function closedSoon(clients) {
  const results = await Promise.all(Object.entries(clients).map(([name, { closed }]) =>
    Promise.race([closed.then(() => null), new Promise((resolve) => setTimeout(resolve, 5000, name)).then((n) => n)])));
  assert.deepEqual(results.filter(Boolean), [], "clients the pipe took instead of closing");
}

/** Defines the checks, each on a fresh pipe from `pipeName()`. */
export function describeStreamPipeChecks(pipeName) {
  describe("the stream pipe accepts only the helper's connections", { timeout: 60_000 }, () => {
    test("foreign clients first (junk, a wrong secret, silence, a replay) are not taken; the launch's own are", async () => {
      const name = pipeName();
      const inbox = new StreamPipeInbox(name);
      assert.equal(inbox.listening, true);
      // Closed whatever the outcome, so that a failed check ends the file at once.
      const opened = [];
      try {
        const { stream_token: token } = inbox.launchOptions([1, 2], 7);
        const other = inbox.launchOptions([1], 8).stream_token;
        assert.match(token, /^[0-9a-f]{32}$/);
        // The launch's own pipe: the helper's name, a dash, the launch's id (never the secret).
        const launchPipe = `${name}-7`;
        const connect = (bytes, to = launchPipe) => {
          const socket = net.connect(to);
          opened.push(socket);
          socket.on("error", () => {});
          const closed = once(socket, "close");
          const data = [];
          socket.on("data", (chunk) => data.push(chunk));
          if (bytes !== null) socket.write(bytes);
          return { socket, closed, data };
        };
        const junk = connect(Buffer.alloc(40, "z"));
        const wrongSecret = connect(`${randomBytes(16).toString("hex")}1`);
        const silent = connect(null);
        const badFd = connect(`${token}0`);  // a valid secret, for an fd the launch does not pipe
        const otherLaunch = connect(`${other}1`);  // another launch's secret, on this launch's pipe
        const atHelper = connect(`${token}1`, name);  // the helper's own name takes no launch's connection
        await closedSoon({ junk, wrongSecret, badFd, otherLaunch, atHelper });
        // The launch's own connections, with the child's first bytes right behind the prefix.
        const own = connect(`${token}1first bytes`);
        const claimed = new Promise((resolve, reject) => inbox.claim(1, 1, [1, 2], (handles, first) => resolve({ handles, first }), () => reject(new Error("lost")), undefined, { stream_token: token }));
        const own2 = connect(`${token}2`);
        const { handles, first } = await claimed;
        // Its end, as a launch's close says it, leaves what was taken alone.
        inbox.released({ stream_token: token });
        assert.deepEqual([...handles.keys()].sort(), [1, 2]);
        assert.equal(first.get(1).toString(), "first bytes");
        assert.equal(first.has(2), false);
        // The handle is Node's end of that connection: what is written there reaches the client.
        const adopted = new net.Socket({ handle: handles.get(1) });
        opened.push(adopted, { destroy: () => handles.get(2).close() });
        adopted.write("to the child");
        await new Promise((resolve) => own.socket.once("data", resolve));
        assert.equal(Buffer.concat(own.data).toString(), "to the child");
        // All its connections came: the launch's pipe listens no more.
        assert.equal(inbox.launchPipesOpen(), 1, "only launch 8's pipe is left");
        assert.equal(silent.socket.destroyed, false, "a silent client waits for its timeout, and takes nothing");
        for (const foreign of [junk, wrongSecret, badFd, otherLaunch, atHelper]) assert.equal(Buffer.concat(foreign.data).length, 0);
      } finally {
        inbox.close();
        for (const socket of opened) socket.destroy();
      }
      assert.equal(inbox.launchPipesOpen(), 0, "the helper's end closes every launch's pipe");
    });

    test("a launch whose connections never come is not kept waiting by a foreign one: lost() for an unknown launch", async () => {
      const inbox = new StreamPipeInbox(pipeName());
      try {
        const lost = await new Promise((resolve) => inbox.claim(1, 1, [0], () => resolve(false), () => resolve(true), undefined, { stream_token: "0".repeat(32) }));
        assert.equal(lost, true);
      } finally {
        inbox.close();
      }
    });
  });
}
