// Many long-lived children at once: start them, measure memory, kill them all.
// Shared by the long-lived suite and flow.mjs's 2,000-children check.
import { fdCount, rssBytes, threadCount } from "./procfs.mjs";
import { sum } from "./stats.mjs";

const sleep = (msec) => new Promise((resolve) => setTimeout(resolve, msec));

function memory(way) {
  const helper = way.helperPid();
  return {
    nodeRss: rssBytes(),
    nodeThreads: threadCount(),
    nodeFds: fdCount(),
    helperRss: helper ? rssBytes(helper) : null,
    helperThreads: helper ? threadCount(helper) : null,
    helperFds: helper ? fdCount(helper) : null,
  };
}

/**
 * Starts `count` `sleep 30` children with piped stdio, `startConcurrency` start
 * calls in flight. Stops early (and says so) if Node's RSS passes `rssCapBytes`.
 */
export async function manyChildren(way, { count, startConcurrency = 32, rssCapBytes = Infinity }) {
  await way.launch("/bin/true", []).done; // the helper or pool exists before "before"
  await sleep(200);
  const before = memory(way);
  const children = [];
  const blocked = [];
  let started = 0;
  let cappedAt = null;
  const t0 = performance.now();
  const lane = async () => {
    while (started < count && cappedAt === null) {
      started++;
      const { ready, blockedMs } = way.spawn("sleep", ["30"], { stdio: ["pipe", "pipe", "pipe"] });
      blocked.push(blockedMs);
      const child = await ready;
      if (child.pid === undefined) throw new Error(`${way.name}: sleep did not start`);
      const closed = new Promise((resolve) => child.once("close", resolve));
      children.push({ child, closed });
      if (children.length % 50 === 0 && rssBytes() > rssCapBytes) cappedAt = children.length;
    }
  };
  await Promise.all(Array.from({ length: startConcurrency }, lane));
  const startMs = performance.now() - t0;
  await sleep(1000); // let threads and buffers settle before reading RSS
  const during = memory(way);
  const k0 = performance.now();
  for (const { child } of children) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.closed));
  const killMs = performance.now() - k0;
  await sleep(500);
  const after = memory(way);
  return {
    requested: count,
    started: children.length,
    cappedAt,
    startMs,
    blockedTotalMs: sum(blocked),
    killMs,
    before,
    during,
    after,
  };
}
