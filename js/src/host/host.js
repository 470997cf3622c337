// ProcessHost: the public entry point. It validates every call through core/options.js and
// hands the normalized request to one backend, so both modes share every rule.
import { rm } from "node:fs/promises";
import { normalizeExecRequest, normalizeForkRequest, normalizeSpawnRequest, ownOptions, splitArguments } from "../core/options.js";
import { runToCompletion } from "../launch/exec-run.js";
import { InlineBackend } from "./backend-inline.js";
import { HelperBackend } from "./backend-helper.js";
import { FallbackBackend } from "./backend-fallback.js";
import { fallbackHelper, shouldFallBackToInline } from "../helper/locate.js";
import { takesDescriptors } from "../helper/process.js";
import { warnUnhandledChildError } from "../launch/host-child.js";
import { HostShutdownError, invalidOption } from "../core/errors.js";
import { DEFAULT_ANSWER_MS } from "../helper/channel.js";
import { adaptRequestForTransport, checkRemoteFork, normalizeTransport } from "../helper/transport.js";

// A host dropped without shutdown() must not keep its helper (a process and three
// descriptors) until Node exits: once it is collected, its helper ends as soon as the
// children it still runs for someone have closed.
const droppedHosts = new FinalizationRegistry((backend) => backend.release?.());

/**
 * Starts child processes without blocking the event loop: in helper mode (the default)
 * a small native helper creates them on its own threads.
 */
export class ProcessHost {
  #backend;
  #mode;
  #platform;
  #closed = false;
  /** normalized `transport` option; null for a local helper or inline mode */
  #transport = null;

  /**
   * @param {object} [options]
   * @param {"helper"|"inline"} [options.mode] "inline" uses node:child_process in this thread
   * @param {number} [options.maxLaunchThreads] launches the helper runs at once
   * @param {(launch: {kind: string, file: string, createMs: number, queuedMs: number}) => void} [options.onLaunch]
   * @param {(error: Error, pid: number|undefined) => void} [options.onUnhandledChildError]
   * @param {boolean} [options.restart] start a new helper after one went away (default true)
   * @param {number} [options.killGraceMs] when the host ends (Node exits or dies, or shutdown()),
   *   how long non-detached children get after their killSignal before SIGKILL (default 5000)
   * @param {string} [options.helperPath] the helper executable (default: located automatically)
   * @param {"inline"|"error"} [options.fallback] when no helper is found for this platform, or
   *   the one found cannot start (it exits, crashes, cannot be executed, or sends no hello
   *   within helperTimeoutMs), and none was named by helperPath or SPAWNHOST_HELPER_PATH:
   *   "inline" (default) runs inline and warns once per process (per broken helper); "error"
   *   makes every call reject with a HelperNotFoundError, or the helper's own error
   * @param {"linux"|"win32"} [options.helperPlatform] the platform the helper runs on, when it
   *   is not this process's: "win32" for the Windows helper run through wine from Linux
   *   (its tests do this). Shell commands, the default cwd and fork follow that platform.
   * @param {number} [options.helperTimeoutMs] how long the helper may owe an answer (its
   *   hello at start, a liveness check while calls wait on it, its end after shutdown's
   *   grace) before it counts as stopped or hung and is killed (default 10000)
   * @param {boolean} [options.trackEnv] a launch without `env` re-reads process.env only after
   *   JavaScript wrote to it (process.env becomes a transparent Proxy that counts writes);
   *   changes made outside JavaScript (native setenv, a SHARE_ENV worker) are then not
   *   seen. Default false: process.env is read at every launch (docs/performance.md)
   * @param {object} [options.transport] reach a helper on another machine through a command's
   *   stdin/stdout: { command, args, remoteCommand?, bootstrap?, cacheDir?, helpers?, name? }
   *   (docs/remote.md). Helper mode only; `env`/`cwd` defaults become the remote helper's;
   *   "inherit" is a TypeError; fork() needs the remote's execPath and an explicit env.
   */
  constructor(options = {}) {
    if (options === null || typeof options !== "object") throw invalidOption("options", options, "an object");
    const { transport, mode = "helper", maxLaunchThreads, onLaunch, onUnhandledChildError = warnUnhandledChildError, restart = true, helperPath, fallback = "inline", killGraceMs = 5000, helperPlatform = process.platform, helperTimeoutMs = DEFAULT_ANSWER_MS, trackEnv = false } = ownOptions(options);
    if (mode !== "helper" && mode !== "inline") throw invalidOption("mode", mode, "\"helper\" or \"inline\"", "ERR_INVALID_ARG_VALUE");
    if (maxLaunchThreads !== undefined && !(Number.isInteger(maxLaunchThreads) && maxLaunchThreads >= 1 && maxLaunchThreads <= 1024)) {
      throw invalidOption("maxLaunchThreads", maxLaunchThreads, "an integer from 1 to 1024", "ERR_OUT_OF_RANGE");
    }
    for (const [name, fn] of [["onLaunch", onLaunch], ["onUnhandledChildError", onUnhandledChildError]]) {
      if (fn !== undefined && typeof fn !== "function") throw invalidOption(name, fn, "a function");
    }
    if (typeof restart !== "boolean") throw invalidOption("restart", restart, "a boolean");
    if (typeof trackEnv !== "boolean") throw invalidOption("trackEnv", trackEnv, "a boolean");
    if (!(Number.isInteger(killGraceMs) && killGraceMs >= 0 && killGraceMs <= 2 ** 31 - 1)) {
      throw invalidOption("killGraceMs", killGraceMs, "a non-negative integer", "ERR_OUT_OF_RANGE");
    }
    if (!(Number.isInteger(helperTimeoutMs) && helperTimeoutMs >= 1 && helperTimeoutMs <= 2 ** 31 - 1)) {
      throw invalidOption("helperTimeoutMs", helperTimeoutMs, "a positive integer", "ERR_OUT_OF_RANGE");
    }
    if (helperPath !== undefined && (typeof helperPath !== "string" || helperPath === "")) {
      throw invalidOption("helperPath", helperPath, "a non-empty path string");
    }
    if (fallback !== "inline" && fallback !== "error") throw invalidOption("fallback", fallback, "\"inline\" or \"error\"", "ERR_INVALID_ARG_VALUE");
    if (helperPlatform !== process.platform && (mode !== "helper" || !["linux", "win32"].includes(helperPlatform))) {
      throw invalidOption("helperPlatform", helperPlatform, "\"linux\" or \"win32\", in helper mode");
    }
    if (transport !== undefined) {
      if (mode !== "helper") throw invalidOption("mode", mode, "\"helper\" when a transport is given", "ERR_INVALID_ARG_VALUE");
      this.#transport = normalizeTransport(transport);
    }
    this.#mode = this.#transport ? "helper" : mode === "helper" && fallback === "inline" && shouldFallBackToInline(helperPath) ? "inline" : mode;
    this.#platform = {
      __proto__: null,
      platform: helperPlatform,
      // A stream as a stdio entry: child_process takes it, and a local helper that
      // receives Node's descriptors.
      givenAvailable: this.#mode === "inline" || (!this.#transport && takesDescriptors(helperPlatform)),
      defaultEnv: this.#transport ? "remote" : trackEnv ? "tracked" : "read",
    };
    const hooks = { onLaunch, onUnhandledChildError };
    // A helper found automatically may turn out not to start: then this host runs inline.
    // (Not a helper reached through a transport: that one was chosen, and is remote.)
    const replaceable = this.#mode === "helper" && fallback === "inline" && !this.#transport ? fallbackHelper(helperPath) : null;
    if (replaceable?.broken) this.#mode = "inline";
    this.#backend = this.#mode === "inline"
      ? new InlineBackend(hooks)
      : new HelperBackend({
        ...hooks, maxLaunchThreads, restart, helperPath, killGraceMs, answerMs: helperTimeoutMs, platform: helperPlatform, transport: this.#transport,
      });
    if (replaceable?.path && !replaceable.broken) {
      this.#backend = new FallbackBackend({ helper: this.#backend, makeInline: () => new InlineBackend(hooks), helperPath: replaceable.path });
    }
    droppedHosts.register(this, this.#backend, this);
  }

  /** "helper" or "inline". */
  get mode() {
    // (Only the fallback backend changes its mode; asked of the others, `mode` would be
    // read from Object.prototype.)
    return this.#backend instanceof FallbackBackend ? this.#backend.mode : this.#mode;
  }

  /**
   * Runs a program to completion, like promisified child_process.execFile.
   * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
   */
  execFile(file, args, options) {
    let request;
    try {
      this.#checkOpen();
      const split = splitArguments(args, options);
      request = normalizeExecRequest(file, split.args, split.options, this.#platform);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runExec(request);
  }

  /**
   * Runs a shell command to completion, like promisified child_process.exec.
   * @returns {Promise<{ stdout: string|Buffer, stderr: string|Buffer }>}
   */
  exec(command, options) {
    let request;
    try {
      this.#checkOpen();
      request = normalizeExecRequest(command, [], options ?? {}, { __proto__: null, viaExec: true, ...this.#platform });
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#runExec(request);
  }

  // Not an async function: the call's promise is the run's own, one promise and no
  // extra microtask turns per launch (bench/start-call.mjs). A throw still
  // becomes the returned promise's rejection, as from an async function.
  #runExec(request) {
    try {
      this.#checkSupported(request);
      // A host that may still fall back to inline waits for its helper's hello (or its
      // failure) before choosing where the call runs; otherwise it starts in this tick.
      const deciding = this.#backend.decided?.();
      if (deciding) return deciding.then(() => runToCompletion(this.#backend, request));
      return runToCompletion(this.#backend, request);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Starts a long-lived child. Resolves once the process exists, or with `pid`
   * undefined and an `error` then `close` event when it could not be created.
   * @returns {Promise<import("../launch/host-child.js").HostChild>}
   */
  async spawn(file, args, options) {
    this.#checkOpen();
    const split = splitArguments(args, options);
    return this.#launch(normalizeSpawnRequest(file, split.args, split.options, this.#platform));
  }

  /**
   * Starts a Node.js module with an IPC channel, like child_process.fork: the child's
   * process.send / process.on("message") talk to the returned child's send / "message".
   * @param {string|URL} modulePath
   * @param {string[]} [args]
   * @param {object} [options] spawn's options, plus execPath, execArgv, silent, serialization
   * @returns {Promise<import("../launch/host-child.js").HostChild>}
   */
  async fork(modulePath, args, options) {
    this.#checkOpen();
    const split = splitArguments(args, options);
    if (this.#transport) checkRemoteFork(split.options);
    return this.#launch(normalizeForkRequest(modulePath, split.args, split.options, this.#platform));
  }

  /**
   * For spawnhost's faces whose spawn() returns a child at once (spawnhost/child_process,
   * spawnhost/pty): starts a request normalized by core/options.js and returns its child
   * before the helper answered, its events held until the caller's `child.release()`.
   * `launched` settles as spawn() would.
   * @returns {{ child: import("../launch/host-child.js").HostChild, launched: Promise<void> }}
   */
  startLaunch(request) {
    this.#checkOpen();
    this.#checkSupported(request);
    return this.#backend.launch(request);
  }

  async #launch(request) {
    this.#checkSupported(request);
    const deciding = this.#backend.decided?.();
    if (deciding) await deciding;
    const { child, launched } = this.#backend.launch(request);
    await launched;
    // Events known already (spawn, error) are raised once the caller holds the child.
    setImmediate(() => child.release());
    return child;
  }

  /**
   * For the drop-in face's spawnSync, execSync and execFileSync (which validate the call
   * and shape the result): runs one child to completion, blocking this thread, without
   * forking Node in helper mode. See sync/launch.js for `request` and the result.
   * @param {import("../sync/launch.js").SyncRequest} request normalized, shell applied
   * @returns {import("../sync/launch.js").SyncResult}
   */
  launchSync(request) {
    this.#checkOpen();
    if (this.#transport) {
      // The sync channel is a socket in the local helper's stdio: no transport carries it,
      // and running the command here instead would run it on the wrong machine.
      const error = new Error(`spawnSync and the other blocking calls cannot reach a host ${this.#transport.label}: use execFile or spawn`);
      error.code = "ERR_SPAWNHOST_REMOTE_SYNC";
      throw error;
    }
    return this.#backend.spawnSync(request);
  }

  /**
   * Deletes a file or directory tree; a path already gone is not an error and links
   * are removed, not followed.
   * @param {string} path
   */
  async removeTree(path) {
    this.#checkOpen();
    if (typeof path !== "string" || path === "" || path.includes("\u0000")) {
      throw invalidOption("path", path, "a non-empty path string without NUL bytes");
    }
    if (this.#backend.removeTree) return this.#backend.removeTree(path);
    await rm(path, { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * Where launches run, after the helper's hello (this starts the helper when none
   * runs): `os` and `arch` in Node's words ("linux", "x64"); across a transport with
   * bootstrap, as the remote's uname reported them, with `helper` "cached" or
   * "uploaded"; without bootstrap, null (unknown).
   * @returns {Promise<{ mode: string, os: string|null, arch: string|null, uname: string|null,
   *   helper: string, helperPid: number, transport: string|null, transportPid: number }>}
   */
  async info() {
    this.#checkOpen();
    const deciding = this.#backend.decided?.();
    if (deciding) await deciding;
    if (this.mode === "inline") {
      return { mode: "inline", os: process.platform, arch: process.arch, uname: null, helper: "none", helperPid: 0, transport: null, transportPid: 0 };
    }
    return this.#backend.info();
  }

  /**
   * What the host is doing now: `helperPid` (0 when no helper runs, and always in
   * inline mode) and `inFlight`, the calls and children the helper still owes answers.
   * @returns {{ mode: "helper"|"inline", helperPid: number, inFlight: number }}
   */
  stats() {
    return { mode: this.mode, ...this.#backend.stats() };
  }

  /**
   * Ends every non-detached child (its killSignal, SIGKILL after killGraceMs), each
   * reporting how it ended, then stops the helper. Calls not answered yet reject with a
   * HostShutdownError.
   */
  async shutdown() {
    droppedHosts.unregister(this);
    this.#closed = true;
    await this.#backend.shutdown();
  }

  #checkOpen() {
    if (this.#closed) throw new HostShutdownError("this ProcessHost was shut down; create a new one");
  }

  #checkSupported(request) {
    if (this.#transport) adaptRequestForTransport(request);
    this.#backend.checkSupported?.(request);
  }
}
