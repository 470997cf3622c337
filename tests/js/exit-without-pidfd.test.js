// Exit detection on kernels without pidfd (Linux < 5.3): the helper falls back to
// SIGCHLD. SPAWNHOST_HELPER_NO_PIDFD=1 in the helper's environment forces that path
// here. CI also runs the whole helper-mode suite that way (.ci/run).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { hostFor, once, rejection } from "./support/modes.js";

/** Starts a host whose helper sees `env` applied to this process's environment (undefined removes). */
async function hostWithHelperEnv(env) {
  const saved = { ...process.env };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    const host = hostFor("helper");
    await host.execFile("true", []); // the helper starts, with this environment
    return host;
  } finally {
    for (const key of Object.keys(env)) {
      if (key in saved) process.env[key] = saved[key];
      else delete process.env[key];
    }
  }
}

/** pidfds the helper holds while `child` (one of its children) runs. */
function helperPidfds(child) {
  const helperPid = Number(readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
  return readdirSync(`/proc/${helperPid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${helperPid}/fd/${fd}`) === "anon_inode:[pidfd]";
    } catch {
      return false; // closed while we looked
    }
  }).length;
}

const withoutPidfd = await hostWithHelperEnv({ SPAWNHOST_HELPER_NO_PIDFD: "1" });
// Even when the whole suite runs with the fallback forced (.ci/run), this one has pidfd.
const normal = await hostWithHelperEnv({ SPAWNHOST_HELPER_NO_PIDFD: undefined });
after(() => Promise.all([withoutPidfd.shutdown(), normal.shutdown()]));

test("the forced helper holds no pidfd for a running child; the normal one does", async () => {
  for (const [host, expectPidfds] of [[withoutPidfd, false], [normal, true]]) {
    const child = await host.spawn("sleep", ["30"]);
    const pidfds = helperPidfds(child);
    child.kill();
    await once(child, "close");
    assert.equal(pidfds > 0, expectPidfds, `${pidfds} pidfds in the ${expectPidfds ? "normal" : "forced"} helper`);
  }
});

test("without pidfd, 100 children exiting at once each report their own status", async () => {
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) =>
    withoutPidfd.execFile("sh", ["-c", `exit ${i % 7}`]).then(() => 0, (error) => error.code)));
  assert.deepEqual(results, Array.from({ length: 100 }, (_, i) => i % 7));
});

test("without pidfd, kill() and timeouts still end children and report the signal", async () => {
  const child = await withoutPidfd.spawn("sleep", ["30"]);
  child.kill("SIGTERM");
  const [code, signal] = await once(child, "close");
  assert.deepEqual([code, signal], [null, "SIGTERM"]);
  const error = await rejection(withoutPidfd.execFile("sleep", ["30"], { timeout: 200 }));
  assert.equal(error.signal, "SIGTERM");
  assert.equal(error.timedOut, true);
});

test("without pidfd, short-lived children that may exit before they are watched are all seen", async () => {
  for (let i = 0; i < 20; i++) {
    const { stdout } = await withoutPidfd.execFile("true", []);
    assert.equal(stdout, "");
  }
});
