// A helper found automatically (the platform package, or the repository's build) that
// cannot start must not take the host down with it: the darwin helpers are built here
// but cannot be run here, and a broken install should cost speed, not correctness.
// This backend starts the helper on the first call and, if it fails before its hello
// (exits, crashes, cannot be executed, stays silent past helperTimeoutMs, or speaks
// another version), runs that host inline from then on, with one warning.
//
// No call is lost or run twice. The asynchronous calls (spawn, execFile, exec, fork,
// removeTree) wait for the outcome of the start before choosing a backend, and the
// helper is sent nothing before its hello. The two calls that cannot wait:
// - spawnSync (blocking) goes to the helper; if it fails because the helper never
//   opened its sync channel (nothing reached the helper), it is run inline.
// - the drop-in face's startLaunch returns its child at once: while the start is
//   undecided it goes to the helper, and if the start then fails it reports the
//   helper's error (it was never run). A helper of another operating system's format
//   is caught before any call (helper/format.js), so this case needs a helper that
//   runs and dies before its hello.
import { rm } from "node:fs/promises";
import { runToCompletion } from "../launch/exec-run.js";
import { reportBrokenHelper } from "../helper/broken.js";

/** Runs on the helper once it said hello; inline if it could not start. */
export class FallbackBackend {
  #helper;
  #makeInline;
  #helperPath;
  /** @type {"starting"|"helper"|"inline"} */
  #state = "starting";
  #decided = null;
  #current;

  /**
   * @param {{ helper: import("./backend-helper.js").HelperBackend,
   *   makeInline: () => import("./backend-inline.js").InlineBackend, helperPath: string }} parts
   *   helperPath: the helper the HelperBackend will start (for the warning)
   */
  constructor({ helper, makeInline, helperPath }) {
    this.#helper = helper;
    this.#makeInline = makeInline;
    this.#helperPath = helperPath;
    this.#current = helper;
  }

  /** "inline" once the helper failed to start, else "helper". */
  get mode() {
    return this.#state === "inline" ? "inline" : "helper";
  }

  /**
   * Starts the helper if nothing is decided yet, and returns a promise that resolves
   * (never rejects) once the backend to use is known; null when it is known already,
   * so that a caller adds no tick to a launch.
   * @returns {Promise<void>|null}
   */
  decided() {
    if (this.#state !== "starting") return null;
    if (!this.#decided) {
      let started;
      try {
        started = this.#helper.whenStarted();
      } catch (error) {
        started = Promise.reject(error);
      }
      this.#decided = started.then(
        () => { if (this.#state === "starting") this.#state = "helper"; },
        (error) => { if (this.#state === "starting") this.#fallBack(error); },
      );
    }
    return this.#decided;
  }

  launch(request) {
    if (this.#state === "starting") this.decided();
    return this.#current.launch(request);
  }

  /** A plain execFile (launch/exec-run.js's lean path) on the backend decided on. */
  execute(request) {
    if (this.#state === "starting") this.decided();
    return this.#current.execute ? this.#current.execute(request) : runToCompletion(this.#current, request);
  }

  spawnSync(request) {
    if (this.#state !== "starting") return this.#current.spawnSync(request);
    this.decided();
    try {
      return this.#helper.spawnSync(request);
    } catch (error) {
      // The sync channel is opened before anything is sent on it: failing to open it,
      // the helper received nothing, and the call may run inline.
      if (!(this.#state === "starting" && this.#helper.syncNeverOpened())) throw error;
      this.#fallBack(error);
      return this.#current.spawnSync(request);
    }
  }

  async removeTree(path) {
    await this.decided();  // null once decided: no wait
    if (this.#current.removeTree) return this.#current.removeTree(path);
    await rm(path, { recursive: true, force: true, maxRetries: 3 });
  }

  /** Where the helper runs; only asked once it started (host.info() waits for that). */
  info() {
    return this.#helper.info();
  }

  checkSupported(request) {
    this.#current.checkSupported?.(request);
  }

  stats() {
    return this.#current.stats();
  }

  release() {
    this.#helper.release();
  }

  async shutdown() {
    await this.#helper.shutdown();
  }

  // Any failure before the hello means the helper cannot start here. The helper
  // backend is released: it starts no other helper for this host.
  #fallBack(error) {
    this.#state = "inline";
    this.#current = this.#makeInline();
    this.#helper.release();
    // Node's permission model without --allow-child-process refused the helper's start:
    // nothing is broken, and inline every call throws ERR_ACCESS_DENIED, as Node's do.
    if (error?.code !== "ERR_ACCESS_DENIED") reportBrokenHelper(this.#helperPath, error.message, error);
  }
}
