// Uses every export of spawnhost's index.d.ts; tests/js/types.test.js type-checks it.
import {
  ProcessHost, HostPool, HostChild, HostExecError, HostSpawnError, HelperExitedError, HelperVersionError,
  HelperNotFoundError, HostShutdownError, ProtocolError, AbortError, SpawnhostError,
  type LaunchInfo, type ExecResult, type HostStats, type ForkOptions, type IpcMessage, type Serialization,
  type HostInfo, type TransportOptions, type HostPoolOptions,
} from "spawnhost";

async function usesEverything(): Promise<void> {
  const host = new ProcessHost({
    mode: "helper",
    maxLaunchThreads: 4,
    restart: true,
    fallback: "error",
    helperPath: "/opt/spawnhost-helper",
    killGraceMs: 2000,
    helperTimeoutMs: 5000,
    trackEnv: true,
    onLaunch: (launch: LaunchInfo) => console.log(launch.kind, launch.file, launch.createMs, launch.queuedMs),
    onUnhandledChildError: (error: Error, pid: number | undefined) => console.warn(error.message, pid),
  });
  const mode: "helper" | "inline" = host.mode;

  const text: ExecResult<string> = await host.execFile("git", ["status"], { cwd: "/", timeout: 1000, killSignal: "SIGKILL" });
  const bytes: ExecResult<Buffer> = await host.execFile("cat", [], { encoding: "buffer", input: "x" });
  const noArgs: ExecResult<string> = await host.execFile("pwd", { cwd: new URL("file:///tmp") });
  const shell: ExecResult<string> = await host.exec("echo hi", { shell: "/bin/bash", maxBuffer: Infinity, signal: AbortSignal.timeout(10) });
  const json = await host.execFile("cli", ["--json"], { completeWhen: "stdout-json", env: { A: "1" }, uid: 0, gid: 0 });
  const stdoutText: string = json.stdout;

  const child: HostChild = await host.spawn("node", ["server.js"], { stdio: ["ignore", "pipe", "inherit"], detached: true, argv0: "srv" });
  child.stdout?.on("data", (chunk: Buffer) => chunk.length);
  child.stdin?.write("x");
  child.on("exit", (code: number | null, signal: NodeJS.Signals | null) => [code, signal]);
  child.once("close", (code, signal) => [code, signal]);
  child.on("error", (error: Error) => error);
  child.on("spawn", () => {});
  const sent: boolean = child.kill("SIGTERM") || child.kill(9) || child.kill();
  child.unref();
  child.ref();
  const fields = [child.pid, child.exitCode, child.signalCode, child.killed, child.spawnfile, child.spawnargs, child.stdio, child.stderr];

  const serialization: Serialization = "advanced";
  const forkOptions: ForkOptions = { execPath: "/usr/bin/node", execArgv: ["--no-warnings"], silent: true, serialization, timeout: 10, cwd: "/" };
  const forked: HostChild = await host.fork("worker.js", ["a"], forkOptions);
  const forkedUrl: HostChild = await host.fork(new URL("file:///tmp/worker.mjs"), { stdio: ["pipe", "pipe", "inherit", "ipc"] });
  const withIpc: HostChild = await host.spawn("node", ["w.js"], { stdio: ["ignore", "pipe", "pipe", "ipc"], serialization: "json" });
  const message: IpcMessage = { n: 1 };
  const more: boolean = forked.send(message) && forked.send("x", (error: Error | null) => error) && forked.send(1, undefined, {}, () => {});
  forked.on("message", (received: unknown) => received);
  forked.once("disconnect", () => {});
  const connected: boolean = forked.connected;
  forked.disconnect();
  void [forkedUrl, withIpc, more, connected];

  await host.removeTree("/tmp/x");
  const stats: HostStats = host.stats();
  const inFlight: number = stats.inFlight + stats.helperPid;
  void inFlight;
  await host.shutdown();

  try {
    await host.execFile("false");
  } catch (error) {
    if (error instanceof HostExecError) {
      const details = [error.code, error.signal, error.killed, error.cmd, error.stdout, error.stderr, error.timedOut, error.errno, error.syscall, error.path, error.spawnargs];
      void details;
    } else if (error instanceof HelperExitedError) {
      const how: [number | null, string | null, string] = [error.exitCode, error.signal, error.helperPath];
      void how;
    } else if (error instanceof ProtocolError) {
      const category: string = error.category;
      void category;
    } else if (error instanceof AbortError) {
      const code: "ABORT_ERR" = error.code;
      void code;
    }
    const family = [HostSpawnError, HelperVersionError, HelperNotFoundError, HostShutdownError].some((k) => error instanceof k);
    const base: boolean = error instanceof SpawnhostError;
    void family; void base;
  }
  void [mode, text, bytes, noArgs, shell, stdoutText, sent, fields];
}

// @ts-expect-error mode is "helper" or "inline"
new ProcessHost({ mode: "worker" });
// @ts-expect-error stdio streams are not accepted
void new ProcessHost().spawn("x", [], { stdio: [process.stdin] });

// @ts-expect-error fork's stdio array must carry "ipc" fourth
void new ProcessHost().fork("w.js", { stdio: ["pipe", "pipe", "pipe"] });

async function remote(): Promise<void> {
  const far = new ProcessHost({ transport: { command: "ssh", args: ["-T", "-o", "BatchMode=yes", "build-2"], cacheDir: "/var/tmp/sh" } });
  const info = await far.info();
  const os: string | null = info.os;
  const pool = new HostPool([far, new ProcessHost()], { maxPerHost: 8 });
  const { stdout } = await pool.execFile("uname", ["-m"], { host: 0 });
  const child = await pool.spawn("sleep", ["1"], { host: far });
  const busy: number[] = pool.stats().map((s) => s.inFlight);
  await pool.shutdown();
  const t: TransportOptions = { command: "docker", args: ["exec", "-i", "box"], bootstrap: false };
  const o: HostPoolOptions = { strategy: "least-busy" };
  const i: HostInfo = info;
  void [os, stdout, child, busy, t, o, i];
}
// @ts-expect-error a transport needs a command
new ProcessHost({ transport: { args: ["host"] } });

void usesEverything;
void remote;
