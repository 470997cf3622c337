// Relayed streams of spawnhost's children as another child's stdio.
// node:child_process gives the child the descriptor of a stream's handle; a relayed
// stream (launch/streams.js: a helper started by a worker thread, a transport,
// SPAWNHOST_STREAMS=relay, the Windows helper) has none, in this process or any other.
// So the entry becomes a "pipe" of the new child (the helper's, or node:child_process's
// for a call that falls back), hidden from the caller as Node's child has no stream
// there, and the bytes are carried here, with backpressure on both sides:
// - a relayed stdout or stderr as a child's stdin: what the helper relays from now on
//   goes to that child's stdin instead of the stream (which stops reading, as Node's
//   does); its end ends that stdin, as the writer's exit gives the reader EOF;
// - a relayed stdin as a child's stdout or stderr: what that child writes goes into the
//   stdin as one more writer, which the stdin's destroy() waits for (the pipe stays
//   open while any writer holds it, as with Node's shared descriptor); its end() shuts
//   it for all, and a writer whose reader is gone has its pipe closed (EPIPE).
// Where Node cannot give a stream's descriptor to the helper (Windows Node: its IPC
// sends sockets, not pipes; helper/stream-pipes.js), a stream of Node's given as stdio
// (another child's net.Socket, a socket) is carried the same way: the child gets a
// pipe, and Node reads the stream into it, or its output into the stream, in JS, where
// child_process's child would read or write the descriptor itself.
import { HelperInput, HelperOutput } from "./streams.js";
import { stopReading } from "./given-stdio.js";
import { isGivenStream, streamHandle } from "../core/stdio-streams.js";

const STREAM_NAMES = ["stdin", "stdout", "stderr"];

/**
 * The `stdio` to launch with when entries are relayed streams, and what to connect once
 * the child exists; null when none is.
 * @param {unknown} stdio the call's `stdio` option
 * @param {{ sockets?: boolean }} [how] sockets: streams of Node's with a handle (Pipe,
 *   TCP) are carried too, where the helper cannot be given their descriptors
 * @returns {{ stdio: unknown[], links: Array<{ fd: number, stream: HelperOutput|HelperInput|import("node:net").Socket, flows: boolean }> } | null}
 */
export function relayedStdio(stdio, { sockets = false } = {}) {
  if (!Array.isArray(stdio)) return null;
  const links = [];
  let found = false;
  const replaced = stdio.map((entry, fd) => {
    const relayed = entry instanceof HelperOutput || entry instanceof HelperInput;
    const carried = !relayed && sockets && isCarriedStream(entry);
    if (fd > 2 || !(relayed || carried)) return entry;
    found = true;
    const flows = carried ? (fd === 0 ? entry.readable !== false : entry.writable !== false)
      : fd === 0 ? entry instanceof HelperOutput : entry instanceof HelperInput;
    // An input as a child's stdin: Node's child reads the far end of a socketpair that
    // no one writes to, which ends when the first child exits; here it ends at once.
    if (fd === 0 && !flows) return "ignore";
    links.push({ fd, stream: entry, flows });
    return "pipe";
  });
  return found ? { stdio: replaced, links } : null;
}

/**
 * The child exists (spawnhost's or node:child_process's): its pipes for the relayed
 * entries leave its `stdio` and are connected to the streams.
 * @param {import("node:child_process").ChildProcess} child
 * @param {Array<{ fd: number, stream: HelperOutput|HelperInput, flows: boolean }>} links
 */
export function linkRelayed(child, links) {
  for (const { fd, stream, flows } of links) {
    const pipe = child.stdio[fd];
    child.stdio[fd] = null;
    child[STREAM_NAMES[fd]] = null;
    if (!(stream instanceof HelperOutput || stream instanceof HelperInput)) carry(fd, stream, flows, pipe);
    else if (fd === 0) feed(stream, writableSink(pipe));
    else if (flows) drain(pipe, stream._share());
    else feed(stream, nowhere(pipe));
  }
}

// A relayed output into a sink. The output stops reading as Node stops a stream it
// gives a child: what it already holds stays there, unread.
function feed(output, sink) {
  stopReading(output);
  output._divert(sink);
}

// An output given as another child's stdout or stderr: Node gives that child the far
// end of the first one's socketpair, which nobody reads. What it writes is dropped, and
// its pipe closes when the first child's end does (its next write fails, EPIPE).
function nowhere(pipe) {
  pipe.resume();
  pipe.on("error", () => {});
  return { write: () => true, onRoom: (resume) => resume(), end: () => pipe.destroy() };
}

// The child's output pipe into a shared relayed stdin, paused while the stdin is full.
function drain(output, share) {
  if (!output) {
    share.release();
    return;
  }
  output.on("data", (chunk) => {
    const room = share.write(chunk);
    // The stdin was shut, or its reader is gone: the writer's pipe closes too, so that
    // its next write fails (EPIPE), as writing to Node's shared socket would.
    if (share.isClosed()) return output.destroy();
    if (room) return;
    output.pause();
    share.onRoom(() => output.resume());
  });
  output.on("end", share.release);
  output.on("close", share.release);
  // The pipe is this module's alone: its errors end the writer, as a closed pipe would.
  output.on("error", share.release);
}

/**
 * The sink a diverted output writes to: the child's stdin pipe. Once that pipe fails
 * (the child exited: EPIPE) what follows is dropped, so the writer runs to its end;
 * Node's writer would instead block once the pipe is full, the parent holding its
 * read end unread.
 */
function writableSink(stdin) {
  let failed = stdin == null;
  stdin?.on("error", () => { failed = true; });
  const dead = () => failed || stdin.destroyed || stdin.writableEnded;
  return {
    write: (chunk) => dead() || stdin.write(chunk),
    onRoom: (resume) => whenRoom(stdin, dead, resume),
    end: () => {
      if (!dead()) stdin.end();
    },
  };
}

// A stream object of Node's on a pipe (not a bare handle: its bytes are read and
// written through the stream). Not a TCP socket: Windows Node's spawn refuses those
// (ENOTSUP), and so does such a call, which goes to it.
function isCarriedStream(entry) {
  return isGivenStream(entry) && streamHandle(entry).constructor.name === "Pipe" &&
    typeof entry.on === "function" && typeof entry.pipe === "function";
}

// A carried socket and the child's pipe in its place. As stdin: the socket is read into
// the pipe, paused while the pipe is full, and its end ends the pipe (the child reads
// EOF when the writer's end closes). As an output: the child's bytes are written to the
// socket, paused while it is full; the socket is not ended (Node's child shares the
// descriptor with its parent, which still holds it), and once it is gone the pipe
// closes, so that the child's next write fails (EPIPE). A stream that cannot flow that
// way (a stdin given as a stdin) connects to nothing, as relayed ones do.
function carry(fd, socket, flows, pipe) {
  if (!pipe) return;
  if (fd === 0) return pump(socket, writableSink(pipe));
  if (!flows) return nowhere(pipe);
  pump(pipe, socketSink(socket), { ends: false });
  socket.once("close", () => pipe.destroy());
}

// Calls `resume` once `stream` has room again ('drain') or is gone ('close'); at once
// when it is dead already. The one wait of both sinks.
function whenRoom(stream, dead, resume) {
  if (dead()) return resume();
  const go = () => {
    stream.off("drain", go);
    stream.off("close", go);
    resume();
  };
  stream.on("drain", go);
  stream.on("close", go);
}

function pump(from, sink, { ends = true } = {}) {
  from.on("error", () => {});
  from.on("data", (chunk) => {
    if (sink.write(chunk)) return;
    from.pause();
    sink.onRoom(() => from.resume());
  });
  if (ends) from.once("end", sink.end);
  from.resume();
}

function socketSink(socket) {
  const dead = () => socket.destroyed || socket.writableEnded;
  return {
    write: (chunk) => dead() || socket.write(chunk),
    onRoom: (resume) => whenRoom(socket, dead, resume),
    end: () => {},
  };
}
