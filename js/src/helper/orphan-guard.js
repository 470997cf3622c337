// Children that nothing ends when their helper is SIGKILLed. The clone launcher gives
// every non-detached child PR_SET_PDEATHSIG, so they die with the helper; posix_spawn
// cannot (the macOS helper, and the Linux helper with SPAWNHOST_HELPER_POSIX_SPAWN=1),
// so there Node ends them itself when it sees the helper die: it keeps the pid of every
// running non-detached child from the frames that pass, and SIGKILLs them.
//
// A pid is killed only until its exit was reported, and at the moment Node learns of
// the helper's end; a child that exited in between was reparented and reaped, and its
// pid would have to be reused in that window (milliseconds) for a wrong process to be
// hit. Blocking calls (the sync channel) are not seen here.
import { decodeOneFrame } from "../protocol/frames.js";
import { MSG } from "../protocol/generated.js";

/**
 * Whether children of a helper on `platform` outlive it when it is killed.
 * @param {string} platform the helper's platform
 */
export function helperLeavesOrphans(platform) {
  return platform === "darwin" || (platform === "linux" && process.env.SPAWNHOST_HELPER_POSIX_SPAWN === "1");
}

/** The running non-detached children of one helper, by request id. */
export class OrphanGuard {
  #detached = new Set();
  /** @type {Map<number, number>} request id → pid */
  #running = new Map();

  /** Sees a frame sent to the helper (a spawn is decoded: its id and `detached`). */
  noteFrame(frame) {
    // [length u32][array header][code]: the code is a positive fixint.
    if (frame[5] !== MSG.spawn) return;
    const { values } = decodeOneFrame(frame, "to_helper");
    this.noteSent("spawn", values);
  }

  /** Sees a message sent to the helper, as its fields. */
  noteSent(name, fields) {
    if (name === "spawn" && fields[3]?.detached) this.#detached.add(fields[0]);
  }

  /** Sees a message from the helper. */
  noteReceived(name, values) {
    const id = values[0];
    if (name === "spawned") {
      if (this.#detached.delete(id)) return;
      this.#running.set(id, values[1]);
    } else if (name === "exit" || name === "spawn_error") {
      this.#running.delete(id);
      this.#detached.delete(id);
    }
  }

  /** The helper is gone: ends every child it left running. Returns how many it signalled. */
  killAll() {
    let signalled = 0;
    for (const pid of this.#running.values()) {
      try {
        process.kill(pid, "SIGKILL");
        signalled++;
      } catch { /* already gone */ }
    }
    this.#running.clear();
    return signalled;
  }
}
