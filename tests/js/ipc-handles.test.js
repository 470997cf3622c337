// Handles over IPC are not part of the API. In helper mode the helper, which cannot
// pass descriptors, refuses a handle the way Node refuses one it cannot take
// (NODE_HANDLE_NACK): that message is dropped and later ones are not held back. In
// inline mode the message arrives without its handle, which is closed, not leaked.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { modes, hostFor, once } from "./support/modes.js";

const CHILD = fileURLToPath(new URL("../fixtures/ipc-sends-handle.mjs", import.meta.url));
const openTcpHandles = () => process.getActiveResourcesInfo().filter((kind) => kind.startsWith("TCP")).length;

for (const mode of modes()) {
  const host = hostFor(mode);
  after(() => host.shutdown());

  test(`a handle sent by the child (${mode}) is not delivered, and nothing is held back or left open`, { timeout: 20_000 }, async () => {
    const serversBefore = openTcpHandles();
    const child = await host.fork(CHILD, []);
    const messages = [];
    child.on("message", (message, handle) => {
      messages.push([message.kind, handle === undefined ? "no handle" : "handle"]);
      if (message.kind === "after") child.send("bye");
    });
    const [code] = await once(child, "close");
    assert.equal(code, 0);
    const expected = mode === "helper" ? [["after", "no handle"]] : [["with-handle", "no handle"], ["after", "no handle"]];
    assert.deepEqual(messages, expected);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(openTcpHandles(), serversBefore, "a server handle the child sent is still open in this process");
  });
}
