// Stdio entries that are streams of Node's: another child's stdout, a socket, a pipe
// (core/options.js, "given"). node:child_process hands such a handle's descriptor to
// its child; here it goes to the helper first, on Node's IPC channel to it, as
// `helper.send({ cmd: GIVE_CMD, token }, handle)` (a descriptor of Node's can cross
// processes only there), and the spawn names it by token (spawn option `given`). The
// stream stops reading as child_process stops it, so that the child alone reads it.
import { USED_AS_STDIO, isStreamHandle, streamHandle } from "../core/stdio-streams.js";
import { awaitingHandle } from "./handed-socket.js";

export { takesDescriptors } from "../helper/process.js";
export { carriesGivenStreams } from "../helper/stream-pipes.js";

/** The `cmd` of the message each descriptor goes with (helper/session/launches.cpp). */
export const GIVE_CMD = "NODE_SPAWNHOST_GIVE";

let lastToken = 0;

/**
 * Stops the given entries' streams reading, now, as child_process does when it spawns.
 * @param {object} request a normalized request with `given`
 */
export function stopGivenStreams(request) {
  for (const entry of request.given ?? []) {
    if (entry) stopReading(entry);
  }
}

/**
 * Sends the descriptor of each given entry to the helper; resolves with the tokens for
 * the spawn's `given` option ([0, 0, 0] entries for the others). Rejects with an error
 * whose `code` is the spawn's, as child_process's spawn would fail: EBADF for a stream
 * that closed before its descriptor could go.
 * @param {import("../helper/handles.js").HandleInbox} inbox
 * @param {object} request
 * @returns {Promise<number[]>}
 */
export async function giveStdio(inbox, request) {
  if (!inbox) throw codedError("ENOTSUP", "this helper takes no descriptors (it relays its children's stdio)");
  // Every handle first: none is sent for a spawn that cannot go.
  const handles = await Promise.all(request.given.map((entry) => (entry ? handleOf(entry) : null)));
  handles.forEach((handle, fd) => {
    if (request.given[fd] && !(handle?.fd >= 0)) throw codedError("EBADF", `stdio[${fd}] has no descriptor any more (it was closed)`);
  });
  const tokens = [0, 0, 0];
  for (const [fd, handle] of handles.entries()) {
    if (!handle) continue;
    lastToken = lastToken >= 0xffffffff ? 1 : lastToken + 1;
    tokens[fd] = lastToken;
    await inbox.give({ cmd: GIVE_CMD, token: lastToken }, handle);
  }
  return tokens;
}

// The handle as child_process finds it (core/stdio-streams.js). A socket of a child
// launched just now gets its handle from the helper a moment later.
async function handleOf(entry) {
  if (awaitingHandle(entry)) await adopted(entry);
  return streamHandle(entry);
}

function adopted(socket) {
  return new Promise((resolve) => {
    const done = () => {
      socket.off("connect", done);
      socket.off("close", done);
      // Whatever started reading when the handle came (a read asked for before the
      // socket was given) stops again: the child reads it.
      stopReading(socket);
      resolve();
    };
    socket.on("connect", done);
    socket.on("close", done);
  });
}

/** Stops a stream reading as child_process stops one it gives a child (also launch/relayed-stdio.js). */
export function stopReading(entry) {
  const handle = streamHandle(entry);
  if (handle) {
    handle.reading = false;
    handle.readStop();
  }
  if (isStreamHandle(entry) || typeof entry.pause !== "function") return;
  entry.pause();
  entry.readableFlowing = false;
  if (entry._readableState) entry._readableState.reading = false;
  entry[USED_AS_STDIO] = true;
}

function codedError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}
