// Inline backend: node:child_process on the calling thread. It receives requests already
// normalized by core/options.js and maps a ChildProcess's events onto a HostChild.
// child_process is imported as a namespace and read at call time, so a test that
// mocks the module (node:test's mock.module) is seen by every launch.
import { nodeChildProcess as childProcess } from "../core/node-child-process.js";
import { HostChild, watchAbortSignal } from "../launch/host-child.js";
import { spawnSyncInline } from "../sync/launch.js";

/** Runs every launch through node:child_process in this thread. */
export class InlineBackend {
  #onUnhandledChildError;
  #onLaunch;

  /** @param {{ onUnhandledChildError: Function, onLaunch?: Function }} hooks */
  constructor({ onUnhandledChildError, onLaunch }) {
    this.#onUnhandledChildError = onUnhandledChildError;
    this.#onLaunch = onLaunch;
  }

  /**
   * Starts a normalized request. Throws when child_process.spawn throws (an error
   * libuv reports synchronously, such as ENOTDIR for a cwd that is a file).
   * @returns {{ child: HostChild, launched: Promise<void> }}
   */
  launch(request) {
    const started = performance.now();
    const cp = childProcess.spawn(request.spawnfile, request.spawnargs.slice(1), {
      argv0: request.spawnargs[0],
      cwd: request.cwd,
      env: request.env,
      stdio: [...request.stdio.map((kind, fd) => (kind === "given" ? request.given[fd] : kind)), ...(request.ipc ? ["ipc"] : [])],
      serialization: request.serialization,
      detached: request.detached,
      uid: request.uid,
      gid: request.gid,
      windowsHide: request.windowsHide,
      windowsVerbatimArguments: request.windowsVerbatimArguments,
      // For execFile/exec the shared runner applies timeout itself, as Node's execFile does.
      timeout: request.kind === "spawn" ? request.timeout : undefined,
      killSignal: request.killSignal,
    });
    const createMs = performance.now() - started;

    const child = new HostChild({
      spawnfile: request.spawnfile,
      spawnargs: request.spawnargs,
      onUnhandledError: this.#onUnhandledChildError,
      controller: {
        kill: (signal) => cp.kill(signal),
        ref: () => cp.ref(),
        unref: () => cp.unref(),
        send: (message, callback) => cp.send(message, callback),
        disconnect: () => {
          closes.parentDisconnected = true;
          cp.disconnect();
        },
      },
    });
    // child_process never emits `close` after the parent's disconnect() (its channel
    // then never reports the end it counts on: nodejs/node#19433). Both modes emit it
    // once the child exited and its outputs closed; this counts those here.
    const closes = { parentDisconnected: false, remaining: 1 };
    const closeOnce = () => {
      if (--closes.remaining === 0 && closes.parentDisconnected) {
        child.deliver("close", child.exitCode, child.signalCode);
      }
    };
    child.pid = cp.pid;
    child.attachStdio(cp.stdin, cp.stdout, cp.stderr);
    for (const stream of [cp.stdout, cp.stderr]) {
      if (stream && cp.pid !== undefined) {
        closes.remaining++;
        stream.on("close", closeOnce);
      }
    }
    if (request.ipc && cp.pid !== undefined) {
      // The channel is child_process's own: its send, handles and all.
      child.useNodeChannel({
        send: (message, handle, options, callback) => cp.send(message, handle, options, callback),
        disconnect: () => {
          closes.parentDisconnected = true;
          cp.disconnect();
        },
        get channel() { return cp.channel ?? null; },
        open() {},
      });
      child.openChannel();
      cp.on("message", (message, handle) => child.deliver("message", message, handle));
      cp.on("internalMessage", (message, handle) => child.deliver("internalMessage", message, handle));
      cp.on("disconnect", () => child.channelClosed());
    }
    cp.on("spawn", () => child.deliver("spawn"));
    cp.on("error", (error) => {
      child.exitCode = cp.exitCode;
      child.deliver("error", error);
    });
    cp.on("exit", (code, signal) => {
      // child_process's own timeout kills through cp.kill(), which sets cp.killed.
      child.killed ||= cp.killed;
      child.exitCode = code;
      child.signalCode = signal;
      child.deliver("exit", code, signal);
      closeOnce();
    });
    cp.on("close", (code, signal) => child.deliver("close", code, signal));
    watchAbortSignal(child, request.signal, request.killSignal);

    if (cp.pid !== undefined) {
      this.#onLaunch?.({ kind: request.kind, file: request.spawnfile, createMs, queuedMs: 0 });
    }
    return { child, launched: Promise.resolve() };
  }

  /**
   * spawnSync's core in inline mode: node:child_process's, same result shape.
   * @param {import("../sync/launch.js").SyncRequest} request
   */
  spawnSync(request) {
    return spawnSyncInline(request);
  }

  /** Nothing to stop: children belong to this process. */
  async shutdown() {}

  /** @returns {{ helperPid: 0, inFlight: 0 }} nothing runs through a helper here */
  stats() {
    return { helperPid: 0, inFlight: 0 };
  }
}
