// A worker-thread process host (the "spawn-offthread" design: execFile on worker threads),
// rebuilt here as a comparison baseline for the benchmarks. It is not part of the
// spawnhost package.
//
// What it keeps from that design, because those choices decide its costs:
// - execFile/exec share a pool of at most `maxPoolWorkers` (default 4) worker
//   threads. A worker that is creating a process gets no other request (it may be
//   blocked in fork); requests that find no free worker wait in a queue on the
//   calling thread. Once the child exists the worker takes the next request while
//   the earlier child runs on.
// - spawn gives each child its own worker thread, which relays stdout/stderr to the
//   calling thread and ends when the child closes.
// - A worker keeps the process.env it started with, so the calling thread copies
//   process.env into every request that passes no env (as child_process reads the
//   live one).
// - No backpressure across the thread boundary: stdin writes complete at once and
//   output nobody reads is buffered on the calling thread.
// - Idle workers do not keep the process alive.
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { EventEmitter } from "node:events";
import { Readable, Writable } from "node:stream";
import * as cp from "node:child_process";

const SELF = new URL(import.meta.url);

// ---------------------------------------------------------------- worker side

function runPoolWorker() {
  parentPort.on("message", (req) => {
    const done = (error, stdout, stderr) => {
      parentPort.postMessage({
        type: "done",
        id: req.id,
        error: error && {
          message: error.message,
          code: error.code,
          signal: error.signal,
          killed: error.killed,
          cmd: error.cmd,
        },
        stdout,
        stderr,
      });
    };
    const t0 = performance.now();
    let child;
    try {
      child =
        req.kind === "exec"
          ? cp.exec(req.command, req.options, done)
          : cp.execFile(req.file, req.args, req.options, done);
    } catch (error) {
      parentPort.postMessage({ type: "created", id: req.id, createMs: performance.now() - t0 });
      done(error, "", "");
      return;
    }
    // The child exists (or failed to): this worker may take the next request.
    parentPort.postMessage({
      type: "created",
      id: req.id,
      pid: child.pid,
      createMs: performance.now() - t0,
    });
  });
}

function runChildWorker() {
  const { file, args, options } = workerData;
  let child;
  try {
    child = cp.spawn(file, args, options);
  } catch (error) {
    parentPort.postMessage({ type: "error", error: { message: error.message, code: error.code } });
    parentPort.postMessage({ type: "close", code: null, signal: null });
    return;
  }
  child.on("error", (error) =>
    parentPort.postMessage({ type: "error", error: { message: error.message, code: error.code } }),
  );
  if (child.pid !== undefined) parentPort.postMessage({ type: "spawned", pid: child.pid });
  for (const fd of ["stdout", "stderr"]) {
    child[fd]?.on("data", (chunk) => parentPort.postMessage({ type: "data", fd, chunk }));
  }
  child.on("exit", (code, signal) => parentPort.postMessage({ type: "exit", code, signal }));
  child.on("close", (code, signal) => {
    parentPort.postMessage({ type: "close", code, signal });
    parentPort.close();
  });
  parentPort.on("message", (msg) => {
    if (msg.type === "stdin") child.stdin?.write(msg.chunk);
    else if (msg.type === "stdin-end") child.stdin?.end();
    else if (msg.type === "kill") child.kill(msg.signal);
  });
}

if (!isMainThread && workerData?.role === "worker-host-pool") runPoolWorker();
if (!isMainThread && workerData?.role === "worker-host-child") runChildWorker();

// ---------------------------------------------------------------- calling side

function withEnv(options = {}) {
  return options.env ? { ...options } : { ...options, env: { ...process.env } };
}

function toError(e, stdout, stderr) {
  const error = new Error(e.message);
  Object.assign(error, { code: e.code, signal: e.signal, killed: e.killed, cmd: e.cmd, stdout, stderr });
  return error;
}

/** A child started by WorkerHost.spawn: the used part of ChildProcess. */
class WorkerHostChild extends EventEmitter {
  constructor(worker, stdio) {
    super();
    this.pid = undefined;
    this.exitCode = null;
    this.signalCode = null;
    this.killed = false;
    this.worker = worker;
    const piped = (i) => (stdio[i] ?? "pipe") === "pipe";
    this.stdin = piped(0)
      ? new Writable({
          write: (chunk, _enc, cb) => {
            worker.postMessage({ type: "stdin", chunk });
            cb(); // "writes to stdin complete immediately": no backpressure.
          },
          final: (cb) => {
            worker.postMessage({ type: "stdin-end" });
            cb();
          },
        })
      : null;
    this.stdout = piped(1) ? new Readable({ read() {} }) : null;
    this.stderr = piped(2) ? new Readable({ read() {} }) : null;
  }

  kill(signal = "SIGTERM") {
    if (this.exitCode !== null || this.signalCode !== null) return false;
    this.worker.postMessage({ type: "kill", signal });
    this.killed = true;
    return true;
  }
}

/** The worker-thread process host. API shaped like spawnhost's ProcessHost. */
export class WorkerHost {
  constructor({ maxPoolWorkers = 4 } = {}) {
    this.maxPoolWorkers = maxPoolWorkers;
    this.pool = []; // { worker, creating, running: Set of request ids }
    this.queue = [];
    this.pending = new Map();
    this.nextId = 1;
    this.children = new Set();
    this.closed = false;
  }

  /** Runs a command to completion: Promise<{stdout, stderr}>. */
  execFile(file, args = [], options = {}) {
    return this.#submit({ kind: "execFile", file, args, options: withEnv(options) });
  }

  exec(command, options = {}) {
    return this.#submit({ kind: "exec", command, options: withEnv(options) });
  }

  /** Starts a long-lived child on its own worker; resolves once it exists. */
  spawn(file, args = [], options = {}) {
    if (this.closed) return Promise.reject(new Error("WorkerHost is shut down"));
    const { stdio = "pipe", ...rest } = options;
    const stdioArr = Array.isArray(stdio) ? stdio : [stdio, stdio, stdio];
    const worker = new Worker(SELF, {
      workerData: {
        role: "worker-host-child",
        file,
        args,
        options: withEnv({ ...rest, stdio: stdioArr }),
      },
      stdout: false,
      stderr: false,
    });
    const child = new WorkerHostChild(worker, stdioArr);
    this.children.add(child);
    return new Promise((resolve) => {
      let resolved = false;
      const settle = () => {
        if (!resolved) {
          resolved = true;
          resolve(child);
        }
      };
      worker.on("message", (msg) => {
        switch (msg.type) {
          case "spawned":
            child.pid = msg.pid;
            settle();
            break;
          case "data":
            // Buffered on this thread whether or not anyone reads: no backpressure.
            child[msg.fd].push(Buffer.from(msg.chunk.buffer, msg.chunk.byteOffset, msg.chunk.byteLength));
            break;
          case "error":
            settle();
            child.emit("error", Object.assign(new Error(msg.error.message), { code: msg.error.code }));
            break;
          case "exit":
            child.exitCode = msg.code;
            child.signalCode = msg.signal;
            child.emit("exit", msg.code, msg.signal);
            break;
          case "close":
            child.stdout?.push(null);
            child.stderr?.push(null);
            this.children.delete(child);
            settle();
            child.emit("close", msg.code, msg.signal);
            break;
        }
      });
      worker.on("error", (error) => {
        settle();
        child.emit("error", error);
      });
    });
  }

  /** Stops every worker; children of stopped workers are not waited for. */
  async shutdown() {
    this.closed = true;
    for (const { reject } of this.pending.values()) reject(new Error("WorkerHost is shut down"));
    this.pending.clear();
    this.queue.length = 0;
    const all = [...this.pool.map((p) => p.worker), ...[...this.children].map((c) => c.worker)];
    this.pool = [];
    await Promise.all(all.map((w) => w.terminate()));
  }

  #submit(req) {
    if (this.closed) return Promise.reject(new Error("WorkerHost is shut down"));
    return new Promise((resolve, reject) => {
      req.id = this.nextId++;
      this.pending.set(req.id, { resolve, reject });
      this.queue.push(req);
      this.#dispatch();
    });
  }

  #dispatch() {
    while (this.queue.length) {
      let slot = this.pool.find((p) => !p.creating);
      if (!slot && this.pool.length < this.maxPoolWorkers) slot = this.#addPoolWorker();
      if (!slot) return;
      const req = this.queue.shift();
      slot.creating = true;
      slot.running.add(req.id);
      slot.worker.ref();
      slot.worker.postMessage(req);
    }
  }

  #addPoolWorker() {
    const worker = new Worker(SELF, {
      workerData: { role: "worker-host-pool" },
      stdout: false,
      stderr: false,
    });
    const slot = { worker, creating: false, running: new Set() };
    worker.on("message", (msg) => {
      if (msg.type === "created") {
        slot.creating = false;
        this.#dispatch();
      } else if (msg.type === "done") {
        slot.running.delete(msg.id);
        if (slot.running.size === 0 && !slot.creating) worker.unref();
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (msg.error) p.reject(toError(msg.error, msg.stdout, msg.stderr));
        else p.resolve({ stdout: msg.stdout, stderr: msg.stderr });
      }
    });
    worker.on("error", (error) => {
      // A pool worker that dies fails what it was running and leaves the pool.
      for (const id of slot.running) {
        this.pending.get(id)?.reject(error);
        this.pending.delete(id);
      }
      this.pool = this.pool.filter((s) => s !== slot);
      this.#dispatch();
    });
    worker.unref();
    this.pool.push(slot);
    return slot;
  }
}
