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
 * Starts `count` `sleep <sleepSeconds>` children with piped stdio,
 * `startConcurrency` start calls in flight. Stops early (and says why) if Node's
 * RSS passes `rssCapBytes` or starting takes longer than `startBudgetMs`.
 * The sleep outlasts the slowest start, so all are alive when memory is read.
 */
export async function manyChildren(
  way,
  { count, startConcurrency = 32, rssCapBytes = Infinity, startBudgetMs = Infinity, sleepSeconds = 900 },
) {
  await way.launch("/bin/true", []).done; // the helper or pool exists before "before"
  await sleep(200);
  const before = memory(way);
  const children = [];
  const blocked = [];
  let started = 0;
  let cappedAt = null;
  let capReason = null;
  const t0 = performance.now();
  const lane = async () => {
    while (started < count && cappedAt === null) {
      started++;
      const { ready, blockedMs } = way.spawn("sleep", [String(sleepSeconds)], { stdio: ["pipe", "pipe", "pipe"] });
      blocked.push(blockedMs);
      const child = await ready;
      if (child.pid === undefined) throw new Error(`${way.name}: sleep did not start`);
      const closed = new Promise((resolve) => child.once("close", resolve));
      children.push({ child, closed });
      if (cappedAt !== null) continue;
      if (children.length % 50 === 0 && rssBytes() > rssCapBytes) {
        cappedAt = children.length;
        capReason = `Node's RSS passed ${(rssCapBytes / 2 ** 30).toFixed(0)} GiB`;
      } else if (performance.now() - t0 > startBudgetMs) {
        cappedAt = children.length;
        capReason = `starting took longer than ${(startBudgetMs / 1000).toFixed(0)} s`;
      }
    }
  };
  await Promise.all(Array.from({ length: startConcurrency }, lane));
  const startMs = performance.now() - t0;
  await sleep(1000); // let threads and buffers settle before reading RSS
  const during = memory(way);
  const alive = children.filter(({ child }) => child.exitCode === null && child.signalCode === null).length;
  const k0 = performance.now();
  for (const { child } of children) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.closed));
  const killMs = performance.now() - k0;
  await sleep(500);
  const after = memory(way);
  return {
    requested: count,
    started: children.length,
    alive,
    cappedAt,
    capReason,
    startMs,
    blockedTotalMs: sum(blocked),
    killMs,
    before,
    during,
    after,
  };
}
