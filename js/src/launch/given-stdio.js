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
    tokens[fd] = nextToken();
    await inbox.give({ cmd: GIVE_CMD, token: tokens[fd] }, handle);
  }
  return tokens;
}

/**
 * giveStdio done now, where it can be: every entry's handle is at hand and the inbox
 * writes descriptors itself (helper/give-now.js). Null when not (nothing was sent): the
 * caller takes giveStdio's way. `written`: every descriptor is in the kernel's buffer, so
 * the helper gets them all even while this thread blocks on the launch.
 * @returns {{ tokens: number[], written: boolean }|null}
 */
export function giveStdioNow(inbox, request) {
  if (typeof inbox?.giveNow !== "function") return null;
  const handles = request.given.map((entry) => (entry && !awaitingHandle(entry) ? streamHandle(entry) : null));
  if (handles.some((handle, fd) => request.given[fd] && !(handle?.fd >= 0))) return null;
  const tokens = [0, 0, 0];
  let written = true;
  for (const [fd, handle] of handles.entries()) {
    if (!handle) continue;
    tokens[fd] = nextToken();
    // Null only where the channel cannot be written this way at all (then for the first
    // entry: nothing was sent), or is broken (the helper is going away with it).
    const sent = inbox.giveNow({ cmd: GIVE_CMD, token: tokens[fd] }, handle);
    if (sent === null) return null;
    written &&= sent === "written";
  }
  return { tokens, written };
}

/**
 * Gives the request's streams (giveStdioNow, else giveStdio), then calls `send` with the
 * tokens (at once where it could give now), or `failed` with giveStdio's error.
 * @returns {boolean} true when every descriptor is in the kernel's buffer already
 */
export function giveStdioThen(inbox, request, send, failed) {
  const now = giveStdioNow(inbox, request);
  if (now) {
    send(now.tokens);
    return now.written;
  }
  giveStdio(inbox, request).then(send, failed);
  return false;
}

function nextToken() {
  lastToken = lastToken >= 0xffffffff ? 1 : lastToken + 1;
  return lastToken;
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
