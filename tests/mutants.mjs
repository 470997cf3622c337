// Mutants scripts/mutants applies, one at a time, to a scratch copy of the repository:
// each breaks one promise on purpose, and the named tests must then fail. A mutant
// whose tests still pass is a promise no test keeps; a `find` text that is no longer in
// its file fails the run too, so this list cannot rot silently when code moves.
//
// Each entry: name; breaks (the behaviour lost); edits ({ file, find, replace }, each
// `find` present exactly once); tests (files under tests/js); pattern (optional
// --test-name-pattern, to run only the tests meant to catch it); modes (optional
// SPAWNHOST_TEST_MODES, default "helper"). Edits under helper/ rebuild the helper.

/** @type {{ name: string, breaks: string, edits: { file: string, find: string, replace: string }[], tests: string[], pattern?: string, modes?: string }[]} */
export const mutants = [
  // The six from issue 17.
  {
    name: "stdin window ignored",
    breaks: "a stdin write's callback no longer waits for the helper's acknowledgements",
    edits: [{ file: "js/src/helper-streams.js", find: "if (this.#inFlight <= STDIN_WINDOW) callback();", replace: "if (this.#inFlight >= 0) callback();" }],
    tests: ["flow-control.test.js"],
    pattern: "does not read bounds",
  },
  {
    name: "queued launch past its deadline starts",
    breaks: "a launch that waited in the queue past its timeout is started anyway",
    edits: [{ file: "helper/session.cpp", find: ": timeout_ms && queued_us >= timeout_ms * 1000 ? \"ETIMEDOUT\"", replace: ": timeout_ms && false ? \"ETIMEDOUT\"" }],
    tests: ["lifecycle.test.js"],
    pattern: "queued at its deadline",
  },
  {
    name: "helper's own PR_SET_PDEATHSIG removed",
    breaks: "the helper no longer learns of Node's death while its stdin is held open elsewhere",
    edits: [{ file: "helper/posix/process.cpp", find: "  if (getppid() == origin.node_pid) prctl(PR_SET_PDEATHSIG, SIGTERM);", replace: "" }],
    tests: ["orphans.test.js"],
    pattern: "holds the helper's stdin",
  },
  {
    name: "HelperExitedError.signal and .helperPath dropped",
    breaks: "the error for a dead helper no longer says which signal ended it, or which binary it was",
    edits: [
      { file: "js/src/errors.js", find: "  error.signal = signal ?? null;\n  error.helperPath = helperPath;\n", replace: "" },
    ],
    tests: ["lifecycle.test.js"],
    pattern: "helper that dies|helper is killed",
  },
  {
    name: "oversized frame not reported as E2BIG",
    breaks: "a spawn too big for one frame fails with another code than exec's",
    edits: [{ file: "js/src/helper-launch.js", find: "this.#onSpawnError(\"E2BIG\", \"queue\");", replace: "this.#onSpawnError(\"EINVAL\", \"queue\");" }],
    tests: ["exec-file.test.js"],
    pattern: "4 MiB frame limit",
  },
  {
    name: "default maxBuffer Infinity",
    breaks: "execFile collects unlimited output by default instead of 1 MiB",
    edits: [{ file: "js/src/options.js", find: "const DEFAULT_MAX_BUFFER = 1024 * 1024;", replace: "const DEFAULT_MAX_BUFFER = Infinity;" }],
    tests: ["exec-file.test.js"],
    pattern: "default maxBuffer",
    modes: "inline,helper",
  },
  {
    name: "helper's own maxBuffer cap removed",
    breaks: "the helper relays a child's output past maxBuffer (Node's second cap hides it from results)",
    edits: [{ file: "helper/child.cpp", find: "const bool over = fd != 3 && max_buffer_ &&", replace: "const bool over = false && fd != 3 && max_buffer_ &&" }],
    tests: ["exec-file.test.js"],
    pattern: "relays no more than maxBuffer",
  },
  // Found on the way.
  {
    name: "completeWhen skipped with maxBuffer Infinity",
    breaks: "completeWhen \"stdout-json\" waits for the child's end when maxBuffer is Infinity",
    edits: [{ file: "js/src/exec-run.js", find: "      if (output === stdout && request.completeWhen === \"stdout-json\") checkJsonComplete();", replace: "      if (output === stdout && request.completeWhen === \"stdout-json\" && request.maxBuffer !== Infinity) checkJsonComplete();" }],
    tests: ["exec-file.test.js"],
    pattern: "completeWhen",
  },
  // Flow control.
  {
    name: "output flow control off",
    breaks: "spawned children's output is read without credit: a paused consumer no longer stops the child",
    edits: [{ file: "js/src/spawn-request.js", find: "if (r.kind === \"spawn\") options.credit = OUTPUT_CREDIT;", replace: "if (r.kind === \"none\") options.credit = OUTPUT_CREDIT;" }],
    tests: ["scale.test.js", "flow-control.test.js"],
    pattern: "stalled consumer|paused stdout",
  },
  {
    name: "helper launches on Node's thread",
    breaks: "helper mode runs every launch through node:child_process on the calling thread",
    edits: [{ file: "js/src/host.js", find: "this.#backend = this.#mode === \"inline\"", replace: "this.#backend = this.#mode !== \"\"" }],
    tests: ["off-thread.test.js"],
  },
  // Kill, ref and unref.
  {
    name: "kill() ignores its signal",
    breaks: "child.kill(signal) always sends SIGTERM",
    edits: [{ file: "js/src/host-child.js", find: "signalName(signal === undefined ? \"SIGTERM\" : signal)", replace: "signalName(\"SIGTERM\")" }],
    tests: ["spawn.test.js"],
    pattern: "kill\\(\\)",
    modes: "inline,helper",
  },
  {
    name: "unref() does nothing",
    breaks: "an unref'd child still keeps Node alive",
    edits: [{ file: "js/src/host-child.js", find: "  unref() {\n    this.#controller.unref();\n  }", replace: "  unref() {}" }],
    tests: ["spawn.test.js"],
    pattern: "unref",
    modes: "inline,helper",
  },
  {
    name: "children lose PR_SET_PDEATHSIG",
    breaks: "a child outlives a helper that was SIGKILLed",
    edits: [{ file: "helper/posix/process.cpp", find: "if (sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL) < 0) child_fail(a, \"prctl\");", replace: "" }],
    tests: ["orphans.test.js"],
    pattern: "helper that is SIGKILLed",
  },
  // Timeouts.
  {
    name: "timeout sends SIGKILL whatever killSignal says",
    breaks: "the helper's timeout ignores killSignal",
    edits: [{ file: "helper/child.cpp", find: "void child::end_for_limit() {\n  kill(kill_signal_);", replace: "void child::end_for_limit() {\n  kill(sigkill_number);" }],
    tests: ["faults.test.js"],
    pattern: "while Node's thread is blocked",
  },
  {
    name: "onLaunch times in microseconds",
    breaks: "createMs and queuedMs are reported in the helper's microseconds",
    edits: [{ file: "js/src/helper-launch.js", find: "createMs: createUs / 1000, queuedMs: queuedUs / 1000", replace: "createMs: createUs, queuedMs: queuedUs" }],
    tests: ["lifecycle.test.js"],
    pattern: "onLaunch",
  },
  // Environment, exit status, output caps.
  {
    name: "env option ignored",
    breaks: "children get the helper's environment instead of the one asked for",
    edits: [{ file: "helper/posix/process.cpp", find: "a.envp = r.options.env ? envp.data() : environ;", replace: "a.envp = environ;" }],
    tests: ["exec-file.test.js"],
    pattern: "env replaces",
  },
  {
    name: "exit codes flattened to 0 or 1",
    breaks: "a child's exit code is reported as 1 whatever it was",
    edits: [{ file: "helper/posix/process.cpp", find: "if (info.si_code == CLD_EXITED) out.code = info.si_status;", replace: "if (info.si_code == CLD_EXITED) out.code = info.si_status ? 1 : 0;" }],
    tests: ["exec-file.test.js"],
    pattern: "exit code 3",
  },
  {
    name: "maxBuffer off by one in Node",
    breaks: "output of exactly maxBuffer bytes is refused",
    edits: [{ file: "js/src/exec-run.js", find: "if (this.#length > this.#maxBuffer) {", replace: "if (this.#length >= this.#maxBuffer) {" }],
    tests: ["exec-file.test.js"],
    pattern: "exactly at maxBuffer",
    modes: "inline",
  },
  // Descriptor hygiene.
  {
    name: "descriptors leak into children",
    breaks: "stdio socketpairs are made without close-on-exec and the child no longer sweeps descriptors before exec",
    edits: [
      { file: "helper/posix/process.cpp", find: "if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0) return launch_failure(\"pipe\", errno);", replace: "if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) < 0) return launch_failure(\"pipe\", errno);" },
      { file: "helper/posix/process.cpp", find: "  sys(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);\n", replace: "" },
    ],
    tests: ["hygiene.test.js"],
    pattern: "inherit only their stdio",
  },
  // Finding the helper.
  {
    name: "fallback \"error\" falls back anyway",
    breaks: "with fallback: \"error\", a missing helper silently runs inline",
    edits: [{ file: "js/src/host.js", find: "mode === \"helper\" && fallback === \"inline\" && shouldFallBackToInline(helperPath)", replace: "mode === \"helper\" && shouldFallBackToInline(helperPath)" }],
    tests: ["distribution.test.js"],
    pattern: "fallback",
  },
  // Lifecycle under faults (issue 13).
  {
    name: "shutdown() settles running children at once",
    breaks: "children lose their real exit at shutdown(): error and close(null, null) instead of exit with the signal",
    edits: [{ file: "js/src/channel.js", find: "        if (handler.onShutdown?.(error)) continue;\n", replace: "" }],
    tests: ["faults.test.js"],
    pattern: "real end",
  },
  {
    name: "no pong",
    breaks: "the helper ignores liveness checks, so a healthy quiet helper is killed as hung",
    edits: [{ file: "helper/session.cpp", find: "channel_.send(encode::pong(r.token));", replace: "(void)r;" }],
    tests: ["faults.test.js"],
    pattern: "quiet helper",
  },
  {
    name: "no start-up deadline",
    breaks: "a helper that never says hello hangs every call",
    edits: [{ file: "js/src/liveness.js", find: "    this.#startDeadline.unref();\n", replace: "    clearTimeout(this.#startDeadline);\n" }],
    tests: ["faults.test.js"],
    pattern: "never says hello",
  },
  {
    name: "no escalation after a timeout",
    breaks: "a timed-out child that ignores its kill signal runs on",
    edits: [{ file: "helper/child.cpp", find: "  if (kill_signal_ == sigkill_number || exited_) return;", replace: "  return;" }],
    tests: ["faults.test.js"],
    pattern: "SIGKILL after killGraceMs",
  },
  {
    name: "launch threads must all start",
    breaks: "a helper refused some of its launch threads aborts instead of running with the rest",
    edits: [{ file: "helper/launch_pool.cpp", find: "  } catch (const std::system_error&) {", replace: "  } catch (const std::bad_alloc&) {" }],
    tests: ["faults.test.js"],
    pattern: "runs on 2 launch threads",
  },
  {
    name: "no EAGAIN without launch threads",
    breaks: "a helper with no launch thread answers launches with another code than child_process's EAGAIN",
    edits: [{ file: "helper/session.cpp", find: "if (!queued) on_launch_skipped(p, \"EAGAIN\");", replace: "if (!queued) on_launch_skipped(p, \"ECANCELED\");" }],
    tests: ["faults.test.js"],
    pattern: "runs on 0 launch threads",
  },
  {
    name: "no node_cwd",
    breaks: "a launch without cwd fails once Node's current directory was deleted",
    edits: [{ file: "js/src/spawn-request.js", find: "  if (r.cwd === undefined && sameMachine) options.node_cwd = true;\n", replace: "" }],
    tests: ["faults.test.js"],
    pattern: "cwd was deleted",
  },
  {
    name: "workers' helpers stay their children",
    breaks: "a helper started by a worker that ended stays a zombie",
    edits: [{ file: "js/src/helper-process.js", find: "const leftParent = !isMainThread && platform !== \"win32\";", replace: "const leftParent = false && !isMainThread && platform !== \"win32\";" }],
    tests: ["faults.test.js"],
    pattern: "worker",
  },
  {
    name: "dropped hosts keep their helpers",
    breaks: "a host collected without shutdown() leaves its helper running",
    edits: [{ file: "js/src/host.js", find: "    droppedHosts.register(this, this.#backend, this);\n", replace: "" }],
    tests: ["faults.test.js"],
    pattern: "dropped without",
  },
  {
    name: "early close_output refused",
    breaks: "execFile's timeout, cutting outputs off before the helper created the process, rejects with a protocol error",
    edits: [{ file: "helper/session.cpp", find: "  if (auto it = launching_.find(r.id); it != launching_.end()) return it->second->early_closes.push_back(r.fd);\n", replace: "" }],
    tests: ["faults.test.js"],
    pattern: "wait in the helper's queue|still creating the process",
  },
  {
    name: "request id kept after a throw",
    breaks: "a launch that throws after taking an id leaves the id taken",
    edits: [{ file: "js/src/helper-launch.js", find: "      if (this.#state === \"launching\" && !this.#channel.gone) this.#releaseId();\n", replace: "" }],
    tests: ["faults.test.js"],
    pattern: "gives the id back",
  },
  // The drop-in face (issue 14).
  {
    name: "sync calls on node:child_process",
    breaks: "spawnSync/execSync/execFileSync fork Node again instead of waiting on the helper",
    edits: [{ file: "js/src/backend-helper.js", find: "return sync ? spawnSyncThroughHelper(sync, request) : spawnSyncInline(request);", replace: "return spawnSyncInline(request);" }],
    tests: ["drop-in.test.js", "sync-pid.test.js"],
    pattern: "sync functions run through the helper|only on the helper's threads",
    modes: "inline,helper",
  },
  {
    name: "no early pid",
    breaks: "pid is undefined right after spawn() returns",
    edits: [{ file: "js/src/drop-in/child.js", find: "        host._waitForPid();\n", replace: "" }],
    tests: ["drop-in.test.js"],
    pattern: "right after spawn\\(\\) returns",
    modes: "inline,helper",
  },
  {
    name: "register leaves ESM named imports alone",
    breaks: "import { spawn } from \"node:child_process\" still reaches Node's own spawn under register",
    edits: [{ file: "js/src/register.js", find: "  syncBuiltinESMExports();\n", replace: "" }],
    tests: ["register.test.js"],
    pattern: "named, default and CommonJS",
    modes: "inline,helper",
  },
  {
    name: "drop-in children are not ChildProcesses",
    breaks: "child instanceof ChildProcess is false for the drop-in's children",
    edits: [{ file: "js/src/drop-in/child.js", find: "Object.setPrototypeOf(DropInChildProcess.prototype, nodeChildProcess.ChildProcess.prototype);", replace: "" }],
    tests: ["drop-in.test.js"],
    pattern: "returns a ChildProcess at once",
    modes: "inline,helper",
  },
  {
    name: "abort waits for spawn",
    breaks: "an abort right after spawn() emits its error later than Node does",
    edits: [{ file: "js/src/drop-in/child.js", find: "      if (!this.#settled) abort.act();", replace: "      if (!this.#settled) setImmediate(() => abort.act());" }],
    tests: ["drop-in.test.js"],
    pattern: "abort right after spawn",
    modes: "inline,helper",
  },
  // The lean launch path (issue 15).
  {
    name: "lean exec: oversized frame not reported as E2BIG",
    breaks: "a plain execFile too big for one frame fails with another code than exec's",
    edits: [{ file: "js/src/exec-call.js", find: "error.category === \"oversized\") this.#spawnError(\"E2BIG\");", replace: "error.category === \"oversized\") this.#spawnError(\"EINVAL\");" }],
    tests: ["exec-file.test.js"],
    pattern: "4 MiB frame limit",
  },
  {
    name: "lean exec: onLaunch times in microseconds",
    breaks: "a plain execFile reports createMs and queuedMs in the helper's microseconds",
    edits: [{ file: "js/src/exec-call.js", find: "createMs: createUs / 1000, queuedMs: queuedUs / 1000", replace: "createMs: createUs, queuedMs: queuedUs" }],
    tests: ["lifecycle.test.js"],
    pattern: "onLaunch",
  },
  {
    name: "lean exec: request id kept after a throw",
    breaks: "a plain execFile that throws after taking an id leaves the id taken",
    edits: [{ file: "js/src/exec-call.js", find: "      this.#channel.release(this.#id);\n      // Arguments and environment", replace: "      // Arguments and environment" }],
    tests: ["faults.test.js"],
    pattern: "gives the id back",
  },
  {
    name: "env values unread when the names are the same",
    breaks: "a launch does not see a variable changed in place (same names, another value)",
    edits: [{ file: "js/src/process-env.js", find: "if (same && (keys[i] !== lastKeys[i] || values[i] !== lastValues[i])) same = false;", replace: "if (same && keys[i] !== lastKeys[i]) same = false;" }],
    tests: ["process-env.test.js"],
    modes: "inline,helper",
  },
  {
    name: "trackEnv misses defineProperty",
    breaks: "with trackEnv, a variable set with Object.defineProperty is not seen by the next launch",
    edits: [{ file: "js/src/process-env.js", find: "    defineProperty: (target, key, descriptor) => wrote(Reflect.defineProperty(target, key, descriptor)),\n", replace: "" }],
    tests: ["process-env.test.js"],
    pattern: "every way",
  },
  {
    name: "trackEnv misses loadEnvFile",
    breaks: "with trackEnv, variables loaded by process.loadEnvFile() are not seen",
    edits: [{ file: "js/src/process-env.js", find: "      } finally {\n        state.writes++;\n      }", replace: "      } finally {\n        void state;\n      }" }],
    tests: ["process-env.test.js"],
    pattern: "loadEnvFile",
  },
  {
    name: "spawn frame reuses a stale environment",
    breaks: "a launch after process.env changed is sent the previous environment's bytes",
    edits: [{ file: "js/src/spawn-frame.js", find: "if (env !== cachedEnv) {", replace: "if (cachedEnv === null) {" }],
    tests: ["spawn-frame.test.js", "process-env.test.js"],
  },
  // Remote hosts (issue 16).
  {
    name: "bootstrap installs an upload whatever its hash",
    breaks: "a tampered upload becomes the cached helper and runs",
    edits: [{ file: "js/src/bootstrap.js", find: "[ \"$got\" = \"$sha\" ] || { say \"fail upload refused", replace: "true || { say \"fail upload refused" }],
    tests: ["remote-faults.test.js"],
    pattern: "SHA-256 does not match",
  },
  {
    name: "bootstrap runs a cached helper unchecked",
    breaks: "a cached helper that was tampered with is run instead of replaced",
    edits: [{ file: "js/src/bootstrap.js", find: "if [ -x \"$bin\" ] && [ \"$(hashof \"$bin\")\" = \"$sha\" ]; then", replace: "if [ -x \"$bin\" ]; then" }],
    tests: ["remote.test.js"],
    pattern: "does not match its hash",
  },
  {
    name: "remote launches get Node's environment",
    breaks: "without env, a remote child gets Node's process.env instead of the remote helper's",
    edits: [{ file: "js/src/host.js", find: "defaultEnv: this.#transport ? \"remote\" : trackEnv ? \"tracked\" : \"read\",", replace: "defaultEnv: trackEnv ? \"tracked\" : \"read\"," }],
    tests: ["remote.test.js"],
    pattern: "env and cwd are the remote helper's",
  },
  {
    name: "HostPool retries launches that reached a dead host",
    breaks: "a launch running on a host that died is sent again to another host (it may run twice)",
    edits: [{ file: "js/src/host-pool.js", find: "    return error.helperStarted === false;", replace: "    return true;" }],
    tests: ["host-pool.test.js"],
    pattern: "none twice",
  },
  // A helper that cannot start, and a helper that dies without ending its children (issue 18).
  {
    name: "a broken platform-package helper fails its host",
    breaks: "a platform package's helper that dies before its hello makes calls reject instead of running inline",
    edits: [{ file: "js/src/backend-fallback.js", find: "    this.#state = \"inline\";\n    this.#current = this.#makeInline();\n", replace: "    throw error;\n" }],
    tests: ["broken-helper.test.js"],
    pattern: "before its hello",
  },
  {
    name: "a helper of another OS is started anyway",
    breaks: "a Mach-O helper on Linux is not recognised before the first call",
    edits: [{ file: "js/src/locate-helper.js", find: "const format = foreignExecutableFormat(found.path);", replace: "const format = null;" }],
    tests: ["broken-helper.test.js"],
    pattern: "Mach-O helper is recognised",
  },
  {
    name: "a SIGKILLed posix_spawn helper leaves its children running",
    breaks: "Node does not end the children of a posix_spawn (macOS) helper that was killed",
    edits: [{ file: "js/src/orphan-guard.js", find: "        process.kill(pid, \"SIGKILL\");\n", replace: "" }],
    tests: ["posix-spawn-launcher.test.js"],
    pattern: "SIGKILLed helper's children",
  },
  // Issue 22: the child's streams.
  {
    name: "exit delivered in the batch that carried the outputs' ends",
    breaks: "exit (and flushStdio's drain) comes before a reader's end: stdout read after stderr's end is lost",
    edits: [{ file: "js/src/helper-launch.js", find: "    setImmediate(() => this.#deliverExit(status, signal, flags));", replace: "    this.#deliverExit(status, signal, flags);" }],
    tests: ["child-streams.test.js"],
    pattern: "stdout read after stderr's end",
  },
  {
    name: "stdin.destroy() leaves the child's stdin open",
    breaks: "a child reading to EOF never exits after stdin.destroy()",
    edits: [{ file: "js/src/helper-streams.js", find: "    try {\n      this.#closeInput();\n    } catch { /* the helper is gone: so is the pipe */ }\n", replace: "" }],
    tests: ["child-streams.test.js"],
    pattern: "stdin.destroy",
  },
  {
    name: "maxBuffer counted by the request's encoding only",
    breaks: "setEncoding() on an output of a call without encoding makes execFile throw in Buffer.concat",
    edits: [{ file: "js/src/exec-run.js", find: "new ExecOutput(request, () => child.stdout?.readableEncoding ?? encoding);", replace: "new ExecOutput(request);" }],
    tests: ["exec-output.test.js"],
    pattern: "stdout.setEncoding",
  },
  {
    name: "the helper cuts a string output at maxBuffer bytes",
    breaks: "a maxBuffer cut inside a UTF-8 character keeps fewer characters than Node",
    edits: [{ file: "js/src/spawn-request.js", find: "Math.floor(r.maxBuffer) * 3", replace: "Math.floor(r.maxBuffer)" }],
    tests: ["exec-output.test.js"],
    pattern: "inside a UTF-8 character",
  },
];
