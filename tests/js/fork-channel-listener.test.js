// The macOS kind of listener for forked children's channels (docs/ipc.md): a socket file
// in a directory of mode 0700, which Linux uses too with SPAWNHOST_HELPER_POSIX_SPAWN=1
// (the macOS helper's code, tested here). A fork's channel through it is Node's own
// pipe (it carries a net.Server), and nothing of it is left on disk once the helper
// ends, nor once it is killed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import net from "node:net";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { hostFor, modes, once } from "./support/modes.js";

const CHILD = new URL("../fixtures/ipc-handle-child.mjs", import.meta.url).pathname;
const skip = !(modes().includes("helper") && process.platform === "linux" && process.env.SPAWNHOST_STREAMS !== "relay") &&
  "needs a local Linux helper that hands streams over";

// A host whose helper starts with SPAWNHOST_HELPER_POSIX_SPAWN=1, and the path its
// listener was given (--channel-name in the helper's command line).
async function pathListenerHost() {
  const saved = process.env.SPAWNHOST_HELPER_POSIX_SPAWN;
  process.env.SPAWNHOST_HELPER_POSIX_SPAWN = "1";
  try {
    const host = hostFor("helper");
    const first = await host.spawn("true", [], { stdio: "ignore" });
    await once(first, "close");
    const args = readFileSync(`/proc/${host.stats().helperPid}/cmdline`, "utf8").split("\0");
    return { host, path: args[args.indexOf("--channel-name") + 1] };
  } finally {
    if (saved === undefined) delete process.env.SPAWNHOST_HELPER_POSIX_SPAWN;
    else process.env.SPAWNHOST_HELPER_POSIX_SPAWN = saved;
  }
}

async function gone(path) {
  for (let tries = 0; existsSync(dirname(path)) && tries < 250; tries++) await sleep(20);
  return !existsSync(dirname(path));
}

test("a fork's channel through a socket file in a 0700 directory carries a net.Server; the file goes with the helper", { skip }, async () => {
  const { host, path } = await pathListenerHost();
  const server = net.createServer();
  try {
    assert.match(path, /^\/.*\/channel$/);
    assert.ok(statSync(path).isSocket());
    assert.equal(statSync(dirname(path)).mode & 0o777, 0o700);
    const child = await host.fork(CHILD, ["receive"]);
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    child.send("take it", server);
    const [reply] = await once(child, "message");
    assert.equal(reply.type, "net.Server", "the handle did not cross: the channel is not Node's own pipe");
    child.send("bye");
    await once(child, "close");
  } finally {
    server.close();
    await host.shutdown();
  }
  assert.ok(await gone(path), `${dirname(path)} is left after shutdown`);
});

test("a helper killed with SIGKILL leaves no socket file behind either", { skip }, async () => {
  const { host, path } = await pathListenerHost();
  assert.ok(existsSync(path));
  process.kill(host.stats().helperPid, "SIGKILL");
  assert.ok(await gone(path), `${dirname(path)} is left after the helper was killed`);
  await host.shutdown().catch(() => {});
});
