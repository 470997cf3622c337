// Helper backend: every launch goes to the native helper over a Channel. Owns the
// current channel and starts a fresh one after the helper went away (option `restart`).
import { Channel } from "../helper/channel.js";
import { HelperLaunch } from "../launch/helper-launch.js";
import { runExecCall } from "../launch/exec-call.js";
import { locateHelper } from "../helper/locate.js";
import { fsError } from "../core/errors.js";
import { spawnSyncInline, spawnSyncThroughHelper } from "../sync/launch.js";

/** Runs every launch through the spawnhost helper. */
export class HelperBackend {

  #hooks;
  #maxLaunchThreads;
  #killGraceMs;
  #restart;
  #helperPath;
  #answerMs;
  #platform;
  /** normalized by helper/transport.js; null for the local helper */
  #transport;
  /** @type {Channel|null} */
  #channel = null;
  /** @type {Set<Channel>} replaced while still finishing their children (a broken sync channel) */
  #retired = new Set();

  /**
   * @param {{ onLaunch?: Function, onUnhandledChildError: Function, maxLaunchThreads?: number,
   *   restart: boolean, helperPath?: string, killGraceMs: number, answerMs: number, platform: string,
   *   transport?: object|null }} options
   */
  constructor({ onLaunch, onUnhandledChildError, maxLaunchThreads, restart, helperPath, killGraceMs, answerMs, platform, transport = null }) {
    this.#transport = transport;
    this.#killGraceMs = killGraceMs;
    this.#answerMs = answerMs;
    this.#platform = platform;
    this.#hooks = { onLaunch, onUnhandledChildError };
    this.#maxLaunchThreads = maxLaunchThreads;
    this.#restart = restart;
    this.#helperPath = helperPath;
  }

  /** @returns {{ child: import("../launch/host-child.js").HostChild, launched: Promise<void> }} */
  launch(request) {
    const launch = new HelperLaunch(this.#currentChannel(), request, this.#hooks);
    return { child: launch.child, launched: launch.launched };
  }

  /**
   * Runs a plain exec request (isPlainExec) on the lean path: no child object.
   * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
   */
  execute(request) {
    return runExecCall(this.#currentChannel(), request, this.#hooks);
  }

  /**
   * Runs one child to completion, blocking this thread: spawnSync's core. Goes through
   * the helper's sync channel; a helper without one (Windows) falls back to
   * node:child_process. Throws when the helper is gone.
   * @param {import("../sync/launch.js").SyncRequest} request
   * @returns {import("../sync/launch.js").SyncResult}
   */
  spawnSync(request) {
    let sync;
    try {
      sync = this.#currentChannel().syncChannel();
    } catch (error) {
      // Found hung before anything of this call was sent (an earlier call gave up on it
      // at its timeout, docs/sync.md): it was killed, and the call goes to a fresh one.
      if (!error?.hung) throw error;
      sync = this.#currentChannel().syncChannel();
    }
    return sync ? spawnSyncThroughHelper(sync, request) : spawnSyncInline(request);
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

  /**
   * Where the helper runs, once it said hello (starting it if none runs): for a
   * transport with bootstrap, the remote's OS and architecture as its uname reported.
   */
  async info() {
    const channel = this.#currentChannel();
    channel.ref();
    try {
      const helperPid = await channel.ready;
      const base = { mode: "helper", helperPid, transport: this.#transport?.label ?? null, transportPid: channel.transportPid };
      if (!this.#transport) return { ...base, os: this.#platform, arch: process.arch, uname: null, helper: "local" };
      const remote = channel.remote;
      if (!remote) return { ...base, os: null, arch: null, uname: null, helper: "as started" };
      const [os, arch] = remote.platform.split("-");
      return { ...base, os, arch, uname: `${remote.os} ${remote.machine}`, helper: remote.how };
    } finally {
      channel.unref();
    }
  }

  /**
   * Starts the helper if none runs; resolves with its pid after its hello, rejects
   * with the reason it failed to start. For FallbackBackend.
   * @returns {Promise<number>}
   */
  whenStarted() {
    const channel = this.#currentChannel();
    // Someone waits for the answer: keep Node alive for it (the channel is unref'd idle).
    channel.ref();
    const { ready } = channel;
    ready.then(() => channel.unref(), () => channel.unref());
    return ready;
  }

  /** True unless the current helper's sync channel was opened: nothing was sent on it. */
  syncNeverOpened() {
    return !this.#channel?.syncOpened;
  }

  /** The current helper's pid (0 when none runs) and how many ids it holds. */
  stats() {
    const channel = this.#channel && !this.#channel.gone ? this.#channel : null;
    return { helperPid: channel?.helperPid ?? 0, inFlight: channel?.inFlight ?? 0 };
  }

  /**
   * The host was garbage-collected: nothing new can start. The helper ends once the
   * children still running for someone have closed (at once when there are none).
   */
  release() {
    this.#restart = false;
    this.#channel?.endWhenIdle();
  }

  /** Ends the helper and its non-detached children. */
  async shutdown() {
    this.#restart = false;
    const channels = [...this.#retired, this.#channel].filter((channel) => channel && !channel.gone);
    await Promise.all(channels.map((channel) => channel.shutdown()));
  }

  #currentChannel() {
    const current = this.#channel;
    // A helper that is going away, or retired (its sync channel broke), takes no new
    // work when a fresh one may be started.
    if (current && !current.retired) return current;
    if (current && !this.#restart) {
      if (current.gone) throw current.gone;
      return current; // its end settles the call with the same error as the others
    }
    if (current && !current.closing) {
      this.#retired.add(current);
      current.closed.then(() => this.#retired.delete(current));
    }
    this.#channel = new Channel({
      // Across a transport the helper path is only what the bootstrap may upload.
      helperPath: this.#transport ? this.#helperPath : locateHelper(this.#helperPath), transport: this.#transport, launchThreads: this.#maxLaunchThreads, graceMs: this.#killGraceMs,
      answerMs: this.#answerMs, platform: this.#platform,
    });
    return this.#channel;
  }
}
