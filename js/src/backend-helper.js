// Helper backend: every launch goes to the native helper over a Channel. Owns the
// current channel and starts a fresh one after the helper went away (option `restart`).
import { Channel } from "./channel.js";
import { HelperLaunch } from "./helper-launch.js";
import { locateHelper } from "./locate-helper.js";
import { fsError } from "./errors.js";

/** Runs every launch through the spawnhost helper. */
export class HelperBackend {
  /** The helper applies timeout and maxBuffer itself; the calling thread only backs it up. */
  enforcesLimits = true;

  #hooks;
  #maxLaunchThreads;
  #killGraceMs;
  #restart;
  #helperPath;
  /** @type {Channel|null} */
  #channel = null;

  /**
   * @param {{ onLaunch?: Function, onUnhandledChildError: Function, maxLaunchThreads?: number,
   *   restart: boolean, helperPath?: string, killGraceMs: number }} options
   */
  constructor({ onLaunch, onUnhandledChildError, maxLaunchThreads, restart, helperPath, killGraceMs }) {
    this.#killGraceMs = killGraceMs;
    this.#hooks = { onLaunch, onUnhandledChildError };
    this.#maxLaunchThreads = maxLaunchThreads;
    this.#restart = restart;
    this.#helperPath = helperPath;
  }

  /** @returns {{ child: import("./host-child.js").HostChild, launched: Promise<void> }} */
  launch(request) {
    const launch = new HelperLaunch(this.#currentChannel(), request, this.#hooks);
    return { child: launch.child, launched: launch.launched };
  }

  /** Deletes a tree in the helper; resolves when gone, rejects with an fs-style error. */
  async removeTree(path) {
    const channel = this.#currentChannel();
    channel.ref();
    try {
      await channel.ready;
      await new Promise((resolve, reject) => {
        const id = channel.register({
          onMessage: (name, values) => {
            channel.release(id);
            if (name === "removed" && values[1] === null) resolve();
            else if (name === "removed") reject(fsError(values[1], values[2] ?? "rm", path));
            else reject(new Error(`the helper rejected remove_tree: ${values[2]}`));
          },
          onGone: reject,
        });
        channel.send("remove_tree", [id, path]);
      });
    } finally {
      channel.unref();
    }
  }

  /** Ends the helper and its non-detached children. */
  async shutdown() {
    this.#restart = false;
    const channel = this.#channel;
    if (channel && !channel.gone) await channel.shutdown();
  }

  #currentChannel() {
    const current = this.#channel;
    // A helper that is going away takes no new work when a fresh one may be started.
    if (current && !current.closing) return current;
    if (current && !this.#restart) {
      if (current.gone) throw current.gone;
      return current; // its end settles the call with the same error as the others
    }
    this.#channel = new Channel({ helperPath: locateHelper(this.#helperPath), launchThreads: this.#maxLaunchThreads, graceMs: this.#killGraceMs });
    return this.#channel;
  }
}
