// A transport: a local command whose stdin/stdout reach a helper somewhere else (ssh,
// docker/podman/kubectl exec -i). The channel speaks the same protocol over it; this
// file validates the option, starts the command (with the bootstrap as its remote
// command unless told not to), and holds the rules for what a remote helper cannot do.
import { basename } from "node:path";
import { BootstrapReader, bootstrapArgv, shellJoin, uploadableHelpers } from "./bootstrap.js";
import { invalidOption } from "../core/errors.js";
import { nodeChildProcess } from "../core/node-child-process.js";

// node:child_process's own spawn, read at load as helper/channel.js does: spawnhost/register
// may later replace the builtin's exports.
const { spawn } = nodeChildProcess;

/**
 * Validates ProcessHost's `transport` option.
 * @returns {{ command: string, args: string[], remoteCommand: "shell"|"argv", bootstrap: boolean,
 *   cacheDir: string|undefined, helpers: Record<string, string>|undefined, label: string }}
 */
export function normalizeTransport(transport) {
  if (transport === null || typeof transport !== "object") throw invalidOption("transport", transport, "an object such as { command: \"ssh\", args: [\"-T\", \"host\"] }");
  // Own properties only, as for every options object (core/options.js, ownOptions).
  const { command, args = [], remoteCommand, bootstrap = true, cacheDir, helpers, name } = { __proto__: null, ...transport };
  if (typeof command !== "string" || command === "") throw invalidOption("transport.command", command, "a non-empty string");
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) throw invalidOption("transport.args", args, "an array of strings");
  // ssh joins its remote command into one string for the remote login shell; exec
  // commands of container tools take it as argv.
  const style = remoteCommand ?? (/^ssh(\.exe)?$/.test(basename(command)) ? "shell" : "argv");
  if (style !== "shell" && style !== "argv") throw invalidOption("transport.remoteCommand", remoteCommand, "\"shell\" or \"argv\"", "ERR_INVALID_ARG_VALUE");
  if (typeof bootstrap !== "boolean") throw invalidOption("transport.bootstrap", bootstrap, "a boolean");
  if (cacheDir !== undefined && (typeof cacheDir !== "string" || cacheDir === "")) throw invalidOption("transport.cacheDir", cacheDir, "a non-empty remote path");
  if (helpers !== undefined && (helpers === null || typeof helpers !== "object" || !Object.values(helpers).every((p) => typeof p === "string"))) {
    throw invalidOption("transport.helpers", helpers, "an object mapping \"linux-x64\"/\"linux-arm64\" to local helper paths");
  }
  if (name !== undefined && typeof name !== "string") throw invalidOption("transport.name", name, "a string");
  return {
    command, args: [...args], remoteCommand: style, bootstrap, cacheDir, helpers: helpers && { ...helpers },
    label: `over the transport "${name ?? [command, ...args].join(" ")}"`,
  };
}

/**
 * Starts the transport. With bootstrap, its remote command is the bootstrap script
 * (helper args after it); without, `args` already start the helper and the helper's
 * arguments are appended.
 * @param {ReturnType<typeof normalizeTransport>} transport
 * @param {string[]} helperArgs
 * @param {string|undefined} localHelperPath ProcessHost's helperPath (the local-platform upload)
 * @returns {{ process: import("node:child_process").ChildProcess, bootstrap: BootstrapReader|null }}
 */
export function startTransport(transport, helperArgs, localHelperPath) {
  let remote = helperArgs;
  let reader = null;
  let helpers = null;
  if (transport.bootstrap) {
    helpers = uploadableHelpers(transport.helpers, localHelperPath);
    remote = bootstrapArgv({ cacheDir: transport.cacheDir, helpers }, helperArgs);
  }
  const tail = transport.remoteCommand === "shell" ? [shellJoin(remote)] : remote;
  const child = spawn(transport.command, [...transport.args, ...tail], { stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
  if (helpers) reader = new BootstrapReader(helpers, (bytes) => child.stdin.write(bytes));
  return { process: child, bootstrap: reader };
}

/**
 * What a helper across a transport cannot do, as TypeErrors naming the option: its
 * descriptors are not Node's, and Node's process.env and cwd describe another machine.
 * Also makes the defaults remote: no `env` means the remote helper's environment, no
 * `cwd` the remote helper's directory (the login directory over ssh).
 * @param {object} request normalized by core/options.js; adjusted in place
 */
export function adaptRequestForTransport(request) {
  request.stdio?.forEach((kind, fd) => {
    if (kind === "inherit") {
      const hint = request.ipc ? " (fork: pass silent: true, or stdio [\"pipe\", \"pipe\", \"pipe\", \"ipc\"])" : "";
      throw remoteUnsupported(`stdio[${fd}]`, "\"inherit\"", `the remote helper's descriptors are not this process's; use "pipe" and forward the data${hint}`);
    }
  });
  // The child finds its channel through NODE_CHANNEL_FD, added to the environment the
  // spawn carries; the remote helper's own environment cannot be extended, only replaced.
  if (request.ipc && request.env === undefined) {
    throw remoteUnsupported("env", "absent, with an IPC channel", "fork() and \"ipc\" on a remote host need an explicit env (the remote helper's own cannot carry NODE_CHANNEL_FD)");
  }
  // (Without env, normalization sent none: defaultEnv "remote".)
  request.remote = true;
}

/**
 * fork() on a remote host: Node's own execPath names a file on this machine, so the
 * remote's node must be named.
 * @param {object|undefined} options fork's options as the caller gave them
 */
export function checkRemoteFork(options) {
  const execPath = options != null && Object.hasOwn(options, "execPath") ? options.execPath : undefined;
  if (typeof execPath !== "string" || execPath === "") {
    throw remoteUnsupported("execPath", "absent", "fork() on a remote host needs execPath, the path of node on the remote (this process's names a file on this machine)");
  }
}

function remoteUnsupported(option, value, why) {
  const error = new TypeError(`The "${option}" option (${value}) is not supported on a host reached over a transport: ${why}`);
  error.code = "ERR_SPAWNHOST_REMOTE_UNSUPPORTED";
  return error;
}
