// A throwaway OpenSSH server for the remote-host tests: sshd from Debian's
// openssh-server, on 127.0.0.1 and a free port, with a host key, a client key, an
// authorized_keys file and a client config, all generated in a temp dir. It logs in
// as the user running the tests (root in CI: sshd must run as root to change users
// anyway, and logging in as ourselves needs no second account); AuthorizedKeysFile
// points into the temp dir, so nobody's ~/.ssh is read or written. StrictModes is off
// because the temp dir sits under the world-writable /tmp. The server sets
// XDG_CACHE_HOME for its sessions, so the bootstrap's cache lands in the temp dir.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { scratchDir } from "./scratch.js";

const SSHD = "/usr/sbin/sshd";

/** Why no sshd can be started here, or null when one can. */
export function sshdUnavailable() {
  if (!existsSync(SSHD)) return `${SSHD} is missing (Debian package openssh-server; scripts/setup installs it)`;
  if (spawnSync("ssh", ["-V"]).error) return "the ssh client is missing (Debian package openssh-client)";
  if (process.getuid() !== 0 && !existsSync("/run/sshd")) return "sshd needs /run/sshd, which only root can create";
  return null;
}

/**
 * For a test file's `before`: an sshd, or a skip with the reason printed. Under CI
 * (CI=true) a missing sshd is a failure: these tests must run there.
 * @param {import("node:test").TestContext|{ skip: Function }} t
 */
export async function sshdOrSkip(t) {
  const reason = sshdUnavailable();
  if (reason === null) return startSshd();
  if (process.env.CI === "true") throw new Error(`CI: the remote-host tests need an sshd: ${reason}`);
  console.log(`# skipping the remote-host tests: ${reason}`);
  t.skip(reason);
  return null;
}

// What the sessions' environment carries from the test run: the cache dir, and the
// variables CI's variant runs set for the helper (sanitizer logs, exit detection by
// SIGCHLD), so that remote helpers run under the same conditions as local ones.
const PASSED_TO_SESSIONS = ["ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "SPAWNHOST_HELPER_NO_PIDFD"];
function sessionEnv(cache) {
  const pairs = [`XDG_CACHE_HOME=${cache}`];
  for (const name of PASSED_TO_SESSIONS) if (process.env[name] !== undefined) pairs.push(`${name}=${process.env[name]}`);
  return pairs.map((pair) => `"${pair.replaceAll("\\", "\\\\").replaceAll("\"", "\\\"")}"`).join(" ");
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts one sshd. `sshArgs` reach it: ssh [...sshArgs] (a -F config naming port,
 * key and known host, then the host alias). `sshPath` is a wrapper script named ssh
 * that does the same for code that takes only a command.
 */
export async function startSshd() {
  const dir = scratchDir("spawnhost-sshd-");
  chmodSync(dir, 0o755);
  if (process.getuid() === 0) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 });
  const keygen = (file) => {
    const r = spawnSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "spawnhost-test", "-f", file]);
    if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
  };
  keygen(join(dir, "host_key"));
  keygen(join(dir, "client_key"));
  writeFileSync(join(dir, "authorized_keys"), readFileSync(join(dir, "client_key.pub")));
  const cache = join(dir, "cache");
  mkdirSync(cache);
  const user = spawnSync("id", ["-un"], { encoding: "utf8" }).stdout.trim();
  // A busy test opens many sessions at once (the pool, the benchmark's ssh per launch).
  let process_, port, stderr = "";
  for (let attempt = 0; attempt < 5 && !process_; attempt++) {
    port = await freePort();
    writeFileSync(join(dir, "sshd_config"), [
      `Port ${port}`, "ListenAddress 127.0.0.1", `HostKey ${dir}/host_key`, `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`, "StrictModes no", "UsePAM no",
      "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
      "PermitRootLogin prohibit-password", `AllowUsers ${user}`, "MaxStartups 200", "MaxSessions 200",
      "LogLevel INFO", `SetEnv ${sessionEnv(cache)}`, "",
    ].join("\n"));
    const child = spawn(SSHD, ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr.setEncoding("utf8");
    const listening = await new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      child.stderr.on("data", (text) => {
        stderr += text;
        if (/Server listening on 127\.0\.0\.1 port/.test(stderr)) { clearTimeout(timer); resolve(true); }
      });
      child.once("exit", () => { clearTimeout(timer); resolve(false); });
    });
    if (listening) process_ = child;
    else child.kill("SIGKILL");
  }
  if (!process_) throw new Error(`sshd did not start: ${stderr}`);
  const hostKey = readFileSync(join(dir, "host_key.pub"), "utf8").trim().split(" ").slice(0, 2).join(" ");
  writeFileSync(join(dir, "known_hosts"), `[127.0.0.1]:${port} ${hostKey}\n`);
  writeFileSync(join(dir, "ssh_config"), [
    "Host sshd-test", "  HostName 127.0.0.1", `  Port ${port}`, `  User ${user}`,
    `  IdentityFile ${dir}/client_key`, "  IdentitiesOnly yes", `  UserKnownHostsFile ${dir}/known_hosts`,
    "  StrictHostKeyChecking yes", "  BatchMode yes", "  LogLevel ERROR", `  ControlPath ${dir}/cm-%C`, "",
  ].join("\n"));
  const sshPath = join(dir, "ssh");
  writeFileSync(sshPath, `#!/bin/sh\nexec ssh -F '${dir}/ssh_config' "$@"\n`, { mode: 0o755 });
  const server = {
    dir, port, cache, user, sshPath,
    alias: "sshd-test",
    /** ssh's arguments up to and including the host */
    sshArgs: ["-F", join(dir, "ssh_config"), "-T", "sshd-test"],
    get running() { return process_.exitCode === null && process_.signalCode === null; },
    /** The transport option of a ProcessHost that reaches this server. */
    transport(extra = {}) {
      return { command: "ssh", args: server.sshArgs, ...extra };
    },
    /** Stops the listener and every session it started (they are its children). */
    async stop() {
      if (!server.running) return;
      const exited = new Promise((resolve) => process_.once("exit", resolve));
      // Each session's sshd is a child of the listener: end them too, so nothing of
      // this server outlives it.
      spawnSync("pkill", ["-KILL", "-P", String(process_.pid)]);
      process_.kill("SIGKILL");
      await exited;
    },
    async remove() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}
