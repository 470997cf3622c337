// One terminal (spawnhost/pty): node-pty's IPty on a HostChild whose process the helper
// started on a new pseudo-terminal. The master is read and written here (handed over,
// master.js) or by the helper (relayed: the child's stdin and stdout are the master).
// What differs from node-pty on purpose is in docs/pty.md, "Differences from node-pty".
import { EventEmitter } from "node:events";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { checkResize, windowDimension } from "./options.js";
import { foregroundName } from "./foreground.js";
import { drainMaster, masterSocket } from "./master.js";
import { FAILED_START_EXIT, startFailureText } from "./start-failure.js";

// After the child's exit, the terminal stays open while output still arrives (a
// program it left behind may hold it); once none came for this long and one more poll
// of the loop brought none either, it is closed (hung up), as a terminal window closes
// when its shell exits.
export const EXIT_DRAIN_MS = 250;

const NO_DISPOSE = Object.freeze({ dispose() {} });

export class Terminal extends EventEmitter {
  /** @type {number} */ cols;
  /** @type {number} */ rows;
  /** node-pty's, for code that reads it: the size is what the terminal itself knows. */
  handleFlowControl;
  #child;
  #file;
  #decoder;
  #flow;
  #master; // handed over: the Pipe handle until the child runs, then its socket
  #output = null; // the Readable of what the terminal shows
  #input = null; // the Writable of what is typed
  #early = []; // written before the master's socket exists (handed over)
  #paused = false;
  #exit = null;
  #outputEnded = false;
  #finished = false;
  #failed = false; // the child could not be started: its reason shown, then exit 1
  #destroyed = false;
  #running = false; // the helper started the child: a later `error` is not a failed start
  #warnedResize = false;
  #drainTimer = null;
  #arrived = 0; // output chunks so far, for the drain after exit

  constructor(options, child, master) {
    super();
    this.cols = options.cols;
    this.rows = options.rows;
    this.handleFlowControl = options.handleFlowControl;
    this.#flow = { pause: options.flowControlPause, resume: options.flowControlResume };
    this.#file = options.file;
    this.#child = child;
    this.#master = master;
    this.#decoder = options.encoding === null ? null : new StringDecoder(options.encoding);
    if (!master) this.#attach(child.stdout, child.stdin);
    child.on("spawn", () => {
      this.#running = true;
      if (master) this.#attach(masterSocket(master), null);
      // A size asked for while the helper was still creating the child.
      if (this.cols !== options.cols || this.rows !== options.rows) child.resize(this.cols, this.rows);
    });
    child.on("error", (error) => {
      if (this.#running) return this.#onRunningError(error);
      this._startFailed(error);
    });
    child.on("exit", (code, signal) => this.#onExit(code, signal));
    // Killed before the helper started it: no process, no exit, only close.
    child.on("close", (code, signal) => {
      if (!this.#exit && !this.#failed) this.#onExit(code, signal ?? child.signalCode);
    });
  }

  /**
   * The child's process id, there when spawn() returns: read before the helper said it,
   * it waits on this thread for the helper's answer (launch/helper-launch.js). Undefined
   * for a program that could not be started (no process was made).
   */
  get pid() {
    return this.#child.waitForPid();
  }

  /** The name of the terminal's foreground process (Linux: from /proc; elsewhere the file). */
  get process() {
    return this.#exit ? this.#file : foregroundName(this.pid, this.#file);
  }

  /** node-pty's event: `listener(data)` for each chunk; returns `{ dispose() }`. */
  onData(listener) {
    return this.#listen("data", listener);
  }

  /** node-pty's event: `listener({ exitCode, signal })` once; returns `{ dispose() }`. */
  onExit(listener) {
    return this.#listen("exit", (exitCode, signal) => listener({ exitCode, signal }));
  }

  /** Types `data` (a string or Buffer) into the terminal; after the exit, nothing happens. */
  write(data) {
    // Checked now, as a socket's write() checks it: a queued write would throw later.
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      const error = new TypeError(`The "chunk" argument must be of type string or an instance of Buffer or Uint8Array. Received ${typeof data}`);
      error.code = "ERR_INVALID_ARG_TYPE";
      throw error;
    }
    if (this.#exit || this.#finished || this.#destroyed) return;
    if (this.handleFlowControl && (data === this.#flow.pause || data === this.#flow.resume)) {
      return data === this.#flow.pause ? this.pause() : this.resume();
    }
    if (this.#input) this.#input.write(data);
    else this.#early.push(data);
  }

  /**
   * Sets the window size: the child's foreground group gets SIGWINCH (Windows: the
   * pseudo console is resized). A size that is not positive throws node-pty's Error; a
   * fraction or a size beyond what a terminal holds is brought into range (node-pty
   * truncates, and wraps around 16 bits). A size the helper could not set is reported
   * later, as an `error` event or a warning (docs/pty.md).
   */
  resize(cols, rows) {
    checkResize(cols, rows);
    this.cols = windowDimension(cols);
    this.rows = windowDimension(rows);
    if (!this.#exit) this.#child.resize(this.cols, this.rows);
  }

  /**
   * Signals the child (default SIGHUP, as node-pty). As node-pty's, it never throws: an
   * unknown signal or a child already gone is ignored.
   */
  kill(signal = "SIGHUP") {
    try {
      this.#child.kill(signal);
    } catch {
      // node-pty swallows whatever process.kill() throws.
    }
  }

  /**
   * Closes the terminal, then hangs up its child (SIGHUP), as node-pty's destroy():
   * nothing more is read or written; the exit still comes.
   */
  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#early.length = 0;
    this.#closeStreams();
    this.kill("SIGHUP");
  }

  /** Stops reading the terminal: once its buffer is full, the child blocks in write(). */
  pause() {
    this.#paused = true;
    this.#output?.pause();
  }

  resume() {
    this.#paused = false;
    this.#output?.resume();
    if (this.#exit && !this.#outputEnded && !this.#drainTimer) this.#drainAfterExit();
  }

  /** node-pty clears ConPTY's buffer on Windows and does nothing elsewhere; here it does nothing anywhere (docs/pty.md). */
  clear() {}

  /**
   * index.js: the child could not be started. As node-pty's child, the terminal shows
   * why and exits with code 1 (start-failure.js); `error` comes first, with
   * child_process's error, only where someone listens for it: code written for
   * node-pty has no listener, and an unheard `error` would throw.
   */
  _startFailed(error) {
    if (this.#failed || this.#finished) return;
    this.#failed = true;
    this.#outputEnded = true;
    this.#exit = FAILED_START_EXIT;
    if (this.listenerCount("error") > 0) this.emit("error", error);
    const line = Buffer.from(`${startFailureText(error)}\r\n`);
    if (!this.#destroyed) this.#show(line);
    this.#finish();
  }

  // An error the helper reported for the running child: a resize it could not make
  // (wine's ResizePseudoConsole: E_NOTIMPL, as ENOTSUP). resize() has returned long
  // before, and the terminal goes on: an `error` event where someone listens, else one
  // warning per terminal, never an uncaught throw for a size the terminal kept.
  #onRunningError(error) {
    const resize = /^the helper rejected a request for this child: resize: (\w+): (.*)$/s.exec(error.message);
    let reported = error;
    if (resize) {
      reported = new Error(`spawnhost/pty: the terminal could not be resized: ${resize[2]} (${resize[1]})`);
      reported.code = resize[1];
      reported.syscall = "resize";
    }
    if (this.listenerCount("error") > 0) return this.emit("error", reported);
    if (resize && this.#warnedResize) return;
    this.#warnedResize ||= Boolean(resize);
    process.emitWarning(reported.message, { type: "SpawnhostWarning", code: reported.code === undefined ? undefined : `SPAWNHOST_PTY_${reported.code}` });
  }

  #listen(event, listener) {
    if (typeof listener !== "function") return NO_DISPOSE;
    this.on(event, listener);
    return { dispose: () => this.off(event, listener) };
  }

  #attach(output, input) {
    this.#output = output;
    this.#input = input ?? output;
    output.on("data", (chunk) => this.#show(chunk));
    output.on("end", () => {
      if (!input) for (const chunk of drainMaster(output)) this.#show(chunk);
      this.#onOutputEnd();
    });
    output.on("close", () => this.#onOutputEnd());
    // EIO: every holder of the terminal's slave side closed it, and all was read.
    output.on("error", () => this.#onOutputEnd());
    if (input && input !== output) input.on("error", () => {});
    if (this.#paused) output.pause();
    if (this.#destroyed) return this.#closeStreams();
    for (const data of this.#early.splice(0)) this.#input.write(data);
  }

  #show(chunk) {
    this.#arrived++;
    const data = this.#decoder ? this.#decoder.write(chunk) : chunk;
    if (data.length > 0) this.emit("data", data);
  }

  // Destroyed: the streams of the terminal close (their end counts as the output's).
  #closeStreams() {
    this.#output?.destroy();
    if (this.#input !== this.#output) this.#input?.destroy();
  }

  #onOutputEnd() {
    if (this.#outputEnded) return;
    this.#outputEnded = true;
    if (this.#exit) this.#finish();
  }

  #onExit(code, signal) {
    this.#exit = { exitCode: code ?? 0, signal: signal ? constants.signals[signal] ?? 0 : 0 };
    if (this.#outputEnded || !this.#output) return this.#finish();
    this.#drainAfterExit();
  }

  #drainAfterExit() {
    const seen = this.#arrived;
    this.#drainTimer = setTimeout(() => setImmediate(() => {
      this.#drainTimer = null;
      if (this.#finished || this.#outputEnded) return;
      if (this.#arrived !== seen) return this.#drainAfterExit();
      if (this.#paused) return; // resume() drains again
      this.#finish();
    }), EXIT_DRAIN_MS);
  }

  // Every byte read, then `exit`, once: nothing is emitted after it.
  #finish() {
    if (this.#finished) return;
    this.#finished = true;
    clearTimeout(this.#drainTimer);
    const rest = this.#decoder?.end();
    if (rest) this.emit("data", rest);
    this.#closeStreams();
    if (!this.#output) this.#master?.close?.(); // never wrapped: no child ran on it
    this.emit("exit", this.#exit.exitCode, this.#exit.signal);
  }
}
