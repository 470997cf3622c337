// Starting one helper: the only process a spawnhost thread creates itself. Locally it
// is the helper binary, with Node's stdio passed on and the sync channel's socket; over
// a transport (helper/transport.js) it is the command that reaches a helper elsewhere.
import { randomBytes } from "node:crypto";
import { fstatSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { isMainThread } from "node:worker_threads";
import { startTransport } from "./transport.js";
import { HandleInbox } from "./handles.js";
import { streamPipeFor } from "./stream-pipes.js";
import { HelperExitedError } from "../core/errors.js";
import { syncPipeName } from "../sync/windows.js";
import { nodeChildProcess } from "../core/node-child-process.js";

// node:child_process's own spawn, read once at load: spawnhost/register later replaces
// the builtin's exports (ESM named imports included), and the helper must not be
// started through the helper.
const { spawn } = nodeChildProcess;

/** This package's version: the helper's hello must name the same. */
export const PACKAGE_VERSION = createRequire(import.meta.url)("../../package.json").version;

/**
 * @typedef {object} StartedHelper
 * @property {import("node:child_process").ChildProcess} process the helper, or the transport
 * @property {import("node:stream").Writable} input where frames go: its stdin, or fd 6
 * @property {boolean} leftParent it forks away from `process` (started from a worker thread)
 * @property {import("node:net").Socket|null} syncSocket Node's end of the sync channel's socket
 *   (docs/sync.md), for a SyncChannel; null where there is none
 * @property {string|null} [syncPipe] instead, on Windows Node: the name of the helper's sync pipe
 * @property {import("./bootstrap.js").BootstrapReader|null} bootstrap reads the bootstrap's lines first
 * @property {string} label how errors name it: the helper's path, or the transport
 * @property {HandleInbox|import("./stream-pipes.js").StreamPipeInbox|null} handles the children's
 *   stdio the helper hands over on Node's IPC channel to it, or on Windows connects to a pipe
 *   of Node's (stream-pipes.js); null where it relays them instead (a transport, a helper
 *   started by a worker thread, SPAWNHOST_STREAMS=relay): docs/architecture.md, "Child streams"
 */

/**
 * @param {{ helperPath?: string, launchThreads?: number, graceMs: number, platform: string,
 *   transport?: object }} options
 * @returns {StartedHelper}
 */
export function startHelper({ helperPath, launchThreads, graceMs, platform, transport }) {
  const args = [];
  if (launchThreads) args.push("--launch-threads", String(launchThreads));
  // Also the helper's grace when Node exits or dies and its stdin reaches EOF.
  args.push("--grace-ms", String(graceMs));
  if (transport) {
    // Across a transport: no inherited fds, no sync socket, no leaving the parent.
    const { process, bootstrap } = startTransport(transport, args, helperPath);
    return { process, input: process.stdin, leftParent: false, syncSocket: null, syncPipe: null, bootstrap, label: transport.label, handles: null };
  }
  // The helper's own fds 0-2 carry the protocol, so Node's fds 0-2 reach it as 3-5,
  // for children whose stdio is "inherit".
  args.unshift("--inherit-fds", "3,4,5");
  // libuv reaps a child only on the loop that started it: a helper outliving the
  // worker that started it would stay a zombie until Node exits. Such a helper forks
  // away from the process Node watches, which exits at once; Node then destroys that
  // process's stdin, so frames go through an extra pipe, fd 6, instead.
  const leftParent = !isMainThread && platform !== "win32";
  if (leftParent) args.push("--leave-parent", "--input-fd", "6");
  const inherited = [0, 1, 2].map((fd) => (isOpen(fd) ? fd : "ignore"));
  const stdio = leftParent ? ["ignore", "pipe", "pipe", ...inherited, "pipe"] : ["pipe", "pipe", "pipe", ...inherited];
  // The sync channel: one more stdio pipe, a socketpair libuv makes with the helper's
  // other pipes. It has no name, so no other process can reach it, and needs nothing
  // from the environment (docs/sync.md). Windows Node cannot read a libuv pipe with
  // fs.readSync: the Windows helper makes a named pipe instead (sync/windows.js).
  const syncPipe = syncPipeName(platform);
  const syncFd = platform !== "win32" ? stdio.length : -1;
  if (syncFd >= 0) {
    stdio.push("pipe");
    args.push("--sync-fd", String(syncFd));
  } else if (syncPipe) {
    args.push("--sync-pipe", syncPipe);
  }
  // Node's own IPC channel to the helper, the only way a descriptor reaches Node: the
  // helper hands it each child's stdio (helper/launch/node_ipc.hpp). JSON, as Node's handle
  // protocol is the same in both serializations and JSON is what the helper parses.
  const ipcFd = handsOver(platform, leftParent) ? stdio.length : -1;
  if (ipcFd >= 0) {
    stdio.push("ipc");
    args.push("--ipc-fd", String(ipcFd));
  }
  // Where forked children's channels connect, to be Node's own IPC pipes (launch/
  // node-channel.js). The helper takes connections from this process only.
  const listener = ipcFd >= 0 && ownsForkChannels(platform) ? channelListener(platform) : null;
  if (listener) args.push("--channel-name", listener.name);
  // Windows Node: the children's stdio connect to a pipe of Node's instead (stream-pipes.js).
  const streamPipe = ipcFd < 0 ? streamPipeFor(platform) : null;
  if (streamPipe) args.push("--stream-pipe", streamPipe.name);
  let child;
  try {
    child = spawn(helperPath, args, { stdio, windowsHide: true, serialization: "json" });
  } catch (error) {
    streamPipe?.close();
    throw error;
  }
  if (streamPipe) child.once("close", () => streamPipe.close());
  // The helper removes a path's socket and directory as it ends; this covers one that
  // was killed, or never started.
  if (listener?.dir) child.once("close", () => rmSync(listener.dir, { recursive: true, force: true }));
  const syncSocket = syncFd >= 0 ? child.stdio[syncFd] ?? null : null;
  const input = leftParent ? child.stdio[6] : child.stdin;
  // Node's spawn goes through ChildProcess.prototype.spawn, which code may replace (a
  // test, a tracer): one that takes the pipes away leaves no channel to speak on.
  if (!input || !child.stdout || !child.stderr) {
    child.kill("SIGKILL");
    streamPipe?.close();
    throw new HelperExitedError(`spawnhost helper ${helperPath} was started without its pipes (a replaced ChildProcess.prototype.spawn took them)`);
  }
  const handles = ipcFd >= 0 && child.channel ? new HandleInbox(child) : streamPipe;
  if (handles && listener) handles.channelListener = listener.address;
  return { process: child, input, leftParent, syncSocket, syncPipe, bootstrap: null, label: helperPath, handles };
}

// Where the children's stdio are handed over rather than relayed. A helper started by
// a worker thread leaves its first process, whose exit Node would take for the end of
// the channel; SPAWNHOST_STREAMS=relay forces the relay (the tests run both).
function handsOver(platform, leftParent) {
  return platform !== "win32" && !leftParent && process.env.SPAWNHOST_STREAMS !== "relay";
}

/**
 * Whether a local helper started here takes descriptors of Node's (stdio entries that
 * are streams, launch/given-stdio.js) and hands its children's stdio over: where its IPC
 * channel to Node exists.
 */
export function takesDescriptors(platform = process.platform) {
  return handsOver(platform, !isMainThread);
}

/**
 * Whether the channels of children forked through a helper started here can never carry
 * handles: the Windows helper relays every channel (docs/ipc.md), and a relayed channel
 * refuses handles, where Node's on Windows carries sockets (WSADuplicateSocket).
 */
export function forkChannelsRefuseHandles(platform = process.platform) {
  return platform === "win32";
}

/**
 * Whether a local helper started here gives forked children channels of Node's own
 * (launch/node-channel.js), which carry handles: Linux and macOS, from the main thread,
 * not forced to relay, on the Node lines whose ChildProcess#spawn that stand-in was
 * checked against (20 to 26). Elsewhere the channel relays, and handles are refused.
 */
export function ownsForkChannels(platform = process.platform) {
  return (platform === "linux" || platform === "darwin") && NODE_MAJOR <= 26 && takesDescriptors(platform);
}

// The listener for forked children's channels: `name` for the helper's --channel-name,
// `address` for Node to connect to, `dir` to remove where it is a file. An abstract
// socket on Linux (nothing on disk to clean up); where there are none (macOS, and Linux
// testing the macOS helper's code: SPAWNHOST_HELPER_POSIX_SPAWN=1, as
// helper/orphan-guard.js), a socket in a fresh directory of mode 0700, which only this
// user can even reach. null: a path too long for a socket address (104 bytes on macOS)
// or no directory for it: the channels relay.
function channelListener(platform) {
  if (platform === "linux" && process.env.SPAWNHOST_HELPER_POSIX_SPAWN !== "1") {
    const name = `spawnhost-${process.pid}-${randomBytes(12).toString("hex")}`;
    return { name, address: `\0${name}`, dir: null };
  }
  let dir;
  try {
    dir = mkdtempSync(join(tmpdir(), "spawnhost-"));
  } catch {
    return null; // no temporary directory to use: the channels relay
  }
  const path = join(dir, "channel");
  if (Buffer.byteLength(path) < 104) return { name: path, address: path, dir };
  rmSync(dir, { recursive: true, force: true });
  return null;
}

const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

function isOpen(fd) {
  try {
    fstatSync(fd);
    return true;
  } catch {
    return false;
  }
}
