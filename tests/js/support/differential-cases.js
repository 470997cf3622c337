// The table the differential suite runs three ways (node:child_process, inline,
// helper). Each case: name, how to call (execFile | exec | spawn), what to call, and
// options (a function when they hold something single-use, like an AbortSignal).
// `input` is written to stdin and ended (for node:child_process through the child).
// `helperDiffers` turns child_process's result into what helper mode must give where
// the README documents an intended difference.
import { writeFileSync, chmodSync, mkdirSync } from "node:fs";
import { scratchDir } from "./scratch.js";

const scratch = scratchDir("spawnhost-diff-");
writeFileSync(`${scratch}/not-executable.sh`, "#!/bin/sh\necho no\n");
writeFileSync(`${scratch}/script.sh`, "#!/bin/sh\necho \"script $1\"\n");
chmodSync(`${scratch}/script.sh`, 0o755);
mkdirSync(`${scratch}/bin`);
writeFileSync(`${scratch}/bin/only-here`, "#!/bin/sh\necho found via PATH\n");
chmodSync(`${scratch}/bin/only-here`, 0o755);

const sh = (script, options) => ({ run: "execFile", file: "sh", args: ["-c", script], options });
const isRoot = process.getuid?.() === 0;
const allBytes = Array.from({ length: 256 }, (_, i) => `\\${i.toString(8).padStart(3, "0")}`).join("");

/** @type {{ name: string, run: string, file: string, args?: string[], options?: object|Function, input?: string|Buffer }[]} */
export const cases = [
  // Arguments and quoting
  { name: "echo with two words", run: "execFile", file: "echo", args: ["hello", "world"] },
  { name: "empty arguments are kept", run: "execFile", file: "printf", args: ["[%s]", "", "x", ""] },
  { name: "a hostile argument is not run by a shell", run: "execFile", file: "printf", args: ["%s\n", "'; rm -rf ~'"] },
  { name: "quotes and backslashes pass through", run: "execFile", file: "printf", args: ["%s|", "\"double\"", "'single'", "back\\slash", "$HOME", "`id`"] },
  { name: "newlines inside arguments", run: "execFile", file: "printf", args: ["%s|", "a\nb", "c\r\nd"] },
  { name: "unicode arguments", run: "execFile", file: "printf", args: ["%s ", "ünïcødé", "日本語", "🚀"] },
  { name: "5000 arguments", run: "execFile", file: "sh", args: ["-c", "echo $#", "sh", ...Array.from({ length: 5000 }, (_, i) => `a${i}`)] },
  { name: "one 100 KB argument", run: "execFile", file: "sh", args: ["-c", "printf %s \"$1\" | wc -c", "sh", "x".repeat(100_000)] },
  { name: "arguments past ARG_MAX fail with E2BIG", run: "execFile", file: "echo", args: Array.from({ length: 3000 }, () => "x".repeat(1000)) },

  // Environment
  { name: "an empty environment value", ...sh("printf '[%s]' \"$EMPTY\"; env | grep -c ^EMPTY=", { env: { EMPTY: "", PATH: process.env.PATH } }) },
  { name: "= inside an environment value", ...sh("printf %s \"$EQ\"", { env: { EQ: "a=b=c", PATH: process.env.PATH } }) },
  { name: "unicode environment names and values", ...sh("printf %s \"$UNI\"", { env: { UNI: "ü日🚀", PATH: process.env.PATH } }) },
  { name: "a 200 KB environment", ...sh("env | grep -c ^BIG_", { env: { PATH: process.env.PATH, ...Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`BIG_${i}`, "v".repeat(100)])) } }) },
  { name: "undefined environment values are dropped", ...sh("env | grep -c ^GONE= || true", { env: { GONE: undefined, PATH: process.env.PATH } }) },
  { name: "an environment without PATH still finds echo", run: "execFile", file: "echo", args: ["no path"], options: { env: {} } },
  { name: "PATH from env is where the program is looked up", run: "execFile", file: "only-here", options: { env: { PATH: `${scratch}/bin:/usr/bin:/bin` } } },

  // Working directory and the program itself
  { name: "cwd is honoured", run: "execFile", file: "pwd", options: { cwd: scratch } },
  { name: "a cwd that does not exist", run: "execFile", file: "echo", options: { cwd: `${scratch}/missing` } },
  { name: "a cwd that is a file", run: "execFile", file: "echo", options: { cwd: `${scratch}/script.sh` } },
  { name: "a directory as the program", run: "execFile", file: scratch },
  { name: "a file without execute permission", run: "execFile", file: `${scratch}/not-executable.sh` },
  { name: "a relative path to a script, from cwd", run: "execFile", file: "./script.sh", args: ["rel"], options: { cwd: scratch } },
  { name: "a missing program by absolute path", run: "execFile", file: "/nonexistent/program" },
  { name: "a missing program by name", run: "execFile", file: "spawnhost-definitely-missing", args: ["a", "b"] },
  { name: "a missing relative program", run: "execFile", file: "./nope", options: { cwd: scratch } },

  // Shell
  { name: "exec runs a command list", run: "exec", file: "echo a; echo b" },
  { name: "exec pipes", run: "exec", file: "printf abc | tr a-c x-z" },
  { name: "exec redirects", run: "exec", file: "echo to-err >&2; echo to-out" },
  { name: "exec of a missing command exits 127", run: "exec", file: "spawnhost-missing-command" },
  { name: "exec with shell /bin/bash", run: "exec", file: "echo $BASH_VERSION | cut -c1", options: { shell: "/bin/bash" } },
  { name: "execFile without shell keeps metacharacters literal", run: "execFile", file: "echo", args: ["a;b", "$HOME", "|", ">x"] },
  { name: "execFile with shell: true interprets them", run: "execFile", file: "echo", args: ["a", "&&", "echo", "b"], options: { shell: true } },
  { name: "exec failure message quotes the command", run: "exec", file: "echo out; echo err >&2; exit 9" },
  { name: "a missing shell", run: "exec", file: "echo hi", options: { shell: "/nonexistent/sh" } },

  // Output
  { name: "all 256 byte values as a Buffer", run: "execFile", file: "printf", args: [allBytes], options: { encoding: "buffer" } },
  { name: "invalid UTF-8 decoded as utf8", run: "execFile", file: "printf", args: ["a\\377\\376b"] },
  { name: "latin1 encoding", run: "execFile", file: "printf", args: ["\\351t\\351"], options: { encoding: "latin1" } },
  { name: "base64 encoding", run: "execFile", file: "printf", args: ["hello"], options: { encoding: "base64" } },
  { name: "an unknown encoding gives Buffers", run: "execFile", file: "printf", args: ["x"], options: { encoding: "bogus" } },
  { name: "output in 2000 small writes", ...sh("i=0; while [ $i -lt 2000 ]; do printf \"$i,\"; i=$((i+1)); done") },
  { name: "10 MB of output", ...sh("head -c 10485760 /dev/zero | tr '\\0' z", { maxBuffer: 20 * 1024 * 1024 }) },
  { name: "stdout and stderr interleaved", ...sh("for i in 1 2 3; do echo out$i; echo err$i >&2; done") },
  { name: "a child that closes stdout early", ...sh("exec 1>&-; sleep 0.1; echo still-here >&2") },
  { name: "1 MB on stderr", ...sh("head -c 1048575 /dev/zero | tr '\\0' e >&2") },
  { name: "no output at all", run: "execFile", file: "true" },

  // Exit codes
  ...[0, 1, 2, 3, 42, 126, 127, 128, 200, 254, 255].map((code) => ({ name: `exit code ${code}`, ...sh(`echo before-${code}; exit ${code}`) })),

  // Signals the child receives from itself (not killed by us)
  ...["SIGTERM", "SIGKILL", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGABRT", "SIGSEGV", "SIGPIPE", "SIGALRM"]
    .map((signal) => ({ name: `killed by ${signal}`, ...sh(`echo partial; kill -${signal.slice(3)} $$; sleep 5`) })),

  // Timeouts
  { name: "timeout of 1 ms", run: "execFile", file: "sleep", args: ["2"], options: { timeout: 1 } },
  { name: "timeout with killSignal SIGKILL", run: "execFile", file: "sleep", args: ["2"], options: { timeout: 100, killSignal: "SIGKILL" } },
  { name: "timeout given as a signal number", run: "execFile", file: "sleep", args: ["2"], options: { timeout: 100, killSignal: 2 } },
  // These timeouts leave sh a whole second to start and print (or exit), even on a
  // loaded machine: child_process's own result, the reference, depends on it.
  { name: "output before a timeout is kept", ...sh("echo before; sleep 4", { timeout: 1000 }) },
  { name: "a timeout that is not reached", run: "execFile", file: "echo", args: ["quick"], options: { timeout: 5000 } },
  { name: "the largest timeout Node accepts", run: "execFile", file: "echo", args: ["in time"], options: { timeout: 2 ** 31 - 1 } },
  { name: "a timeout reached after the child exited 0, a grandchild holding its output", ...sh("echo out; (sleep 4) & exit 0", { timeout: 1000 }) },
  { name: "a timeout reached after the child exited 3, a grandchild holding its output", ...sh("echo out; (sleep 4) & exit 3", { timeout: 1000 }) },
  // The trap is set long before the timeout (sh starts in well under 500 ms, even under
  // qemu), and the child ends long before the helper's SIGKILL (killGraceMs, 5 s).
  { name: "a child that ignores the timeout's SIGTERM runs on to its own exit", ...sh("trap '' TERM; echo trapped; sleep 0.7; echo finished", { timeout: 500 }) },
  { name: "killSignal SIGKILL ends a child that ignores SIGTERM", ...sh("trap '' TERM; echo trapped; sleep 1", { timeout: 500, killSignal: "SIGKILL" }) },

  // maxBuffer
  { name: "maxBuffer exceeded on stdout", ...sh("head -c 5000 /dev/zero | tr '\\0' o", { maxBuffer: 1000 }) },
  { name: "maxBuffer exceeded on stderr", ...sh("head -c 5000 /dev/zero | tr '\\0' e >&2", { maxBuffer: 1000 }) },
  { name: "output exactly at maxBuffer", run: "execFile", file: "printf", args: ["12345"], options: { maxBuffer: 5 } },
  { name: "maxBuffer 0 with output", run: "execFile", file: "echo", args: ["x"], options: { maxBuffer: 0 } },
  { name: "maxBuffer Infinity", ...sh("head -c 2000000 /dev/zero | tr '\\0' i", { maxBuffer: Infinity }) },
  { name: "maxBuffer with buffer encoding", ...sh("head -c 3000 /dev/zero", { maxBuffer: 100, encoding: "buffer" }) },

  // Abort
  { name: "abort before the call", run: "execFile", file: "sleep", args: ["2"], options: () => ({ signal: AbortSignal.abort("before") }) },
  { name: "abort after launch", run: "execFile", file: "sleep", args: ["2"], options: () => ({ signal: AbortSignal.timeout(100) }) },
  { name: "abort with killSignal SIGKILL", run: "execFile", file: "sleep", args: ["2"], options: () => ({ signal: AbortSignal.timeout(100), killSignal: "SIGKILL" }) },
  { name: "an abort after the command finished changes nothing", run: "execFile", file: "echo", args: ["done"], options: () => ({ signal: new AbortController().signal }) },

  // stdin
  { name: "input reaches cat", run: "execFile", file: "cat", input: "some input\n" },
  { name: "1 MB of input, more than a pipe buffer", run: "execFile", file: "wc", args: ["-c"], input: Buffer.alloc(1024 * 1024 + 3, "i") },
  { name: "input to a child that never reads it", run: "execFile", file: "true", input: Buffer.alloc(512 * 1024) },

  // Identity
  ...(isRoot ? [
    { name: "uid switches the user", run: "execFile", file: "id", args: ["-u"], options: { uid: 65534 } },
    { name: "gid switches the group", run: "execFile", file: "id", args: ["-g"], options: { gid: 65534 } },
  ] : [
    { name: "uid 0 without privilege fails with EPERM", run: "execFile", file: "id", options: { uid: 0 } },
  ]),
  { name: "windowsHide and windowsVerbatimArguments are accepted on POSIX", run: "execFile", file: "echo", args: ["w"], options: { windowsHide: true, windowsVerbatimArguments: true } },

  // spawn: event order, fields and output
  { name: "spawn: exit then close with output", run: "spawn", file: "sh", args: ["-c", "echo out; echo err >&2; exit 3"] },
  { name: "spawn: a missing program", run: "spawn", file: "spawnhost-definitely-missing", args: ["x"] },
  { name: "spawn: a cwd that is a file throws", run: "spawn", file: "echo", options: { cwd: `${scratch}/script.sh` } },
  { name: "spawn: killed with SIGTERM", run: "spawn", file: "sleep", args: ["5"], kill: "SIGTERM" },
  { name: "spawn: killed with SIGKILL by number", run: "spawn", file: "sleep", args: ["5"], kill: 9 },
  { name: "spawn: shell command", run: "spawn", file: "echo $((2 + 3))", options: { shell: true } },
  { name: "spawn: timeout", run: "spawn", file: "sleep", args: ["5"], options: { timeout: 100 } },
  { name: "spawn: the largest timeout Node accepts", run: "spawn", file: "echo", args: ["in time"], options: { timeout: 2 ** 31 - 1 } },
  { name: "spawn: argv0", run: "spawn", file: "sh", args: ["-c", "echo $0"], options: { argv0: "renamed" } },
  { name: "spawn: stdio ignore", run: "spawn", file: "echo", args: ["x"], options: { stdio: "ignore" } },
  { name: "spawn: stdin piped through", run: "spawn", file: "cat", input: "through cat\n" },
  // 1 s, not less: an abort that comes before the launch finished is a different case
  // (never started, below), and a loaded or emulated machine can take that long.
  { name: "spawn: abort", run: "spawn", file: "sleep", args: ["5"], options: () => ({ signal: AbortSignal.timeout(1000) }) },
  {
    name: "spawn: abort before the call",
    run: "spawn",
    file: "sleep",
    args: ["5"],
    options: () => ({ signal: AbortSignal.abort("early") }),
    // Intended difference (README, "Differences"): the helper never starts a process
    // whose signal was already aborted; child_process starts it and then kills it.
    helperDiffers: (expected) => ({
      ...expected,
      events: expected.events.filter(([event]) => event !== "spawn" && event !== "exit"),
      hasPid: false,
    }),
  },
  { name: "spawn: env and cwd", run: "spawn", file: "sh", args: ["-c", "echo $X; pwd"], options: { env: { X: "from-env", PATH: process.env.PATH }, cwd: scratch } },
  { name: "spawn: a cwd that does not exist", run: "spawn", file: "echo", options: { cwd: `${scratch}/missing` } },
  { name: "spawn: a directory as the program", run: "spawn", file: scratch },
  { name: "spawn: exit code 255 with stderr", run: "spawn", file: "sh", args: ["-c", "echo bad >&2; exit 255"] },
  { name: "spawn: killed by its own SIGSEGV", run: "spawn", file: "sh", args: ["-c", "kill -SEGV $$"] },
  { name: "spawn: kill with signal 0 probes a live child", run: "spawn", file: "sh", args: ["-c", "sleep 0.2"], kill: 0 },
  { name: "spawn: detached", run: "spawn", file: "sh", args: ["-c", "echo detached"], options: { detached: true } },
  { name: "exec: cwd given as a file URL", run: "exec", file: "pwd", options: { cwd: new URL(`file://${scratch}`) } },
];
