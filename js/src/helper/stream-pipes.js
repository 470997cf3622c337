// The hand-over on Windows (docs/architecture.md, "Child streams"): Node cannot
// receive a handle of the helper's there (Node's IPC passes only sockets), so Node makes
// the pipes itself. Each launch with piped stdio has a named pipe server of its own,
// made in its spawn() call on Node's thread before the request goes, with one instance
// waiting per piped fd, on the helper's base name (random bytes, its --stream-pipe), a
// dash and the launch's request id; the helper derives that name and connects each piped
// stdio of the launch to it (helper/windows/node_pipes.cpp) and gives the child its end.
// The instances exist before the helper connects, so a launch never waits for Node's
// thread to make one: a thread blocked in a synchronous call (the pid read right after
// spawn(), docs/sync.md) in a loop of many launches accepts none meanwhile. libuv creates
// a server's first instance with FILE_FLAG_FIRST_PIPE_INSTANCE: if anyone made that name
// first, the launch fails here before the helper could connect to it. The server closes
// once its connections have come, or the launch is over. The connection Node accepts is
// a Pipe of its own, read and written as the net.Socket child_process gives, with no
// helper between them.
// A name can be found (the pipe namespace can be listed), so anyone may connect: each
// launch carries a secret of 16 random bytes (spawn option stream_token, sent on the
// helper's stdin, which no other process holds, and never part of a name), and the
// helper writes it and the fd's digit first on each connection. Node keeps a connection
// only if it starts with the secret of a launch still waiting for that fd; any other is
// closed (and libuv makes an instance in its place), and a client that says nothing is
// closed after PREFIX_WAIT_MS. The launch does not wait on a foreign client: its own
// connections come beside it. A token is used once.
// This is the one JS module of the Windows hand-over: it has the interface of
// helper/handles.js's HandleInbox, which launch/handover.js uses.
import net from "node:net";
import { randomBytes } from "node:crypto";
import { envForMomentaryWrites } from "../core/process-env.js";

/** Hex digits of a launch's secret, then one digit: the fd. */
const TOKEN_LENGTH = 32;
const PREFIX_LENGTH = TOKEN_LENGTH + 1;
/** How long a connection may take to say who it is; the helper's say it at once. */
const PREFIX_WAIT_MS = 10000;
/**
 * How a Windows helper started here carries its children's stdio: "handover" (this
 * module) or "relay" (launch/relay.js), by SPAWNHOST_STREAMS; the default was picked by
 * bench/windows-streams.mjs (bench/RESULTS.md).
 */
export function windowsStreams() {
  const chosen = process.env.SPAWNHOST_STREAMS;
  return chosen === "relay" || chosen === "handover" ? chosen : "handover";
}

/**
 * A stream pipe for a helper about to start, or null where the children's stdio is
 * relayed: not Windows Node, or the relay chosen, or no pipe could be made.
 * @returns {StreamPipeInbox|null}
 */
export function streamPipeFor(platform) {
  if (platform !== "win32" || process.platform !== "win32" || windowsStreams() !== "handover") return null;
  const inbox = new StreamPipeInbox(`\\\\.\\pipe\\spawnhost-streams-${process.pid}-${randomBytes(16).toString("hex")}`);
  return inbox.listening ? inbox : null;
}

/**
 * Whether streams given as stdio are carried by Node (launch/relayed-stdio.js) where
 * the helper takes no descriptors: on Windows Node, whose IPC cannot send a pipe's
 * handle to another process, so that such a launch still goes through the helper.
 */
export function carriesGivenStreams(platform = process.platform) {
  return platform === "win32";
}

/** The connections of one helper's launches, by launch. */
export class StreamPipeInbox {
  /** Node's Pipe handle class: for the sockets made before their connection came. */
  Pipe;
  /** Forked children's channels stay relayed on Windows (launch/handover.js). */
  channelListener = null;
  receives = true;
  /** The pipe's name, for the helper's --stream-pipe. */
  name;
  listening = false;
  #server;
  /** @type {Map<string, { expected: Set<number>, fds: Map<number, { handle: object, rest: Buffer }>, claim: object|null, server: net.Server }>} by token */
  #launches = new Map();
  /** The launches' pipe servers still open. */
  #launchPipes = new Set();
  #closed = false;

  constructor(name) {
    this.name = name;
    // The helper's own name is never connected to: listened on so that it is ours (no
    // launch's name can have been made before it by anyone who saw it), with the Pipe
    // class of Node's handles, and one instance.
    this.#server = listenOn(name, 1, (socket) => socket.destroy());
    this.listening = this.#server !== null;
    this.Pipe = this.#server?._handle.constructor;
  }

  /**
   * The spawn options of a new launch `id` whose piped stdio are `fds`: its secret, whose
   * connections are expected from now on, one for each of those fds, on the launch's own
   * pipe, listening from now on. Throws (code EADDRINUSE...) if that pipe cannot be made.
   */
  launchOptions(fds, id) {
    if (this.#closed) throw Object.assign(new Error("the stream pipe is closed"), { code: "EPIPE", stage: "pipe" });
    const token = randomBytes(TOKEN_LENGTH / 2).toString("hex");
    // A connection to this pipe is this launch's or nobody's.
    const server = listenOn(`${this.name}-${id}`, fds.length, (socket) => this.#accepted(socket, token));
    if (!server) throw Object.assign(new Error(`the stream pipe of launch ${id} could not be made`), { code: "EADDRINUSE", stage: "pipe" });
    this.#launchPipes.add(server);
    this.#launches.set(token, { expected: new Set(fds), fds: new Map(), claim: null, server });
    return { stream_token: token };
  }

  /**
   * Calls `ready` with the handles of `fds` once they are all connected. The helper
   * connected them all before it created the process, so they come (the launch fails
   * in the helper if one cannot).
   */
  claim(id, pid, fds, ready, lost, stderrFirst, { stream_token: token }) {
    const launch = this.#launches.get(token);
    if (!launch) return lost();
    launch.claim = { fds, ready };
    this.#tryComplete(token);
  }

  /** How many launches' pipes still listen (a test's view: each closes once its connections came). */
  launchPipesOpen() {
    return [...this.#launchPipes].filter((server) => server.listening).length;
  }

  /** Windows Node cannot send a pipe to the helper (launch/given-stdio.js). */
  give() {
    return Promise.reject(Object.assign(new Error("the Windows helper takes no descriptors"), { code: "ENOTSUP" }));
  }

  /** The launch took its sockets (its token was spent then): nothing is kept for it. */
  settled() {}

  /** The launch is over before it took its sockets (or never started): close them. */
  discard(id, pid, options) {
    const launch = this.#launches.get(options?.stream_token);
    if (!launch) return;
    this.#launches.delete(options.stream_token);
    this.#closePipe(launch.server);
    for (const { handle } of launch.fds.values()) handle.close();
  }

  /** The launch ended, however: what it still holds here goes. */
  released(options) {
    this.discard(0, 0, options);
  }

  /** The helper is gone: nothing more comes. */
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#server?.close();
    for (const launch of this.#launches.values()) {
      this.#closePipe(launch.server);
      for (const { handle } of launch.fds.values()) handle.close();
    }
    this.#launches.clear();
  }

  #closePipe(server) {
    server.close();
    this.#launchPipes.delete(server);
  }

  // A connection to launch `token`'s pipe says it is that launch's, and which fd, before
  // anything else is read from it.
  #accepted(socket, token) {
    socket.on("error", () => {});
    const chunks = [];
    let length = 0;
    const timer = setTimeout(() => socket.destroy(), PREFIX_WAIT_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
    const onData = (chunk) => {
      chunks.push(chunk);
      length += chunk.length;
      if (length < PREFIX_LENGTH) return;
      socket.off("data", onData);
      clearTimeout(timer);
      const handle = socket._handle;
      // Not a byte more into this socket: what follows the prefix is the child's
      // stream's, read by the socket that gets the handle (handed-socket.js).
      handle.reading = false;
      handle.readStop();
      const bytes = Buffer.concat(chunks);
      const launch = this.#closed || bytes.toString("latin1", 0, TOKEN_LENGTH) !== token ? undefined : this.#launches.get(token);
      const fd = bytes[TOKEN_LENGTH] - 0x30;
      if (!launch?.expected.has(fd) || launch.fds.has(fd)) return socket.destroy();
      // The handle leaves this socket, which then closes without closing it.
      socket._handle = null;
      socket.destroy();
      launch.fds.set(fd, { handle, rest: bytes.subarray(PREFIX_LENGTH) });
      // All its connections came: the launch's pipe takes no more.
      if (launch.fds.size === launch.expected.size) this.#closePipe(launch.server);
      this.#tryComplete(token);
    };
    socket.on("data", onData);
    // pauseOnConnect left it paused, which a 'data' listener does not undo.
    socket.resume();
  }

  #tryComplete(token) {
    const launch = this.#launches.get(token);
    const claim = launch?.claim;
    if (!claim || !claim.fds.every((fd) => launch.fds.has(fd))) return;
    // Spent (its pipe closed as its last connection came): nothing is kept for it.
    this.#launches.delete(token);
    const handles = new Map([...launch.fds].map(([fd, { handle }]) => [fd, handle]));
    const rests = [...launch.fds].filter(([, { rest }]) => rest.length > 0);
    claim.ready(handles, new Map(rests.map(([fd, { rest }]) => [fd, rest])));
  }
}

/**
 * A pipe server on `name` with `instances` waiting for clients (Node's own setting,
 * NODE_PENDING_PIPE_INSTANCES, read as the server listens; libuv makes them all then),
 * or null if it cannot listen there.
 */
function listenOn(name, instances, onConnection) {
  // pauseOnConnect: nothing is read from a connection before it is known.
  const server = net.createServer({ pauseOnConnect: true }, onConnection);
  server.on("error", () => server.close());
  // net's listen reads it through process.env; set beneath trackEnv's Proxy, if any.
  const env = envForMomentaryWrites();
  const saved = env.NODE_PENDING_PIPE_INSTANCES;
  env.NODE_PENDING_PIPE_INSTANCES = String(instances);
  try {
    // Binds at once (the 'listening' event only follows): the helper may connect as
    // soon as the request reaches it. Exclusive: in a cluster worker a shared listen
    // would be the primary's, asked for over IPC, and this process would hold no pipe.
    server.listen({ path: name, exclusive: true });
  } catch {
    return null;
  } finally {
    if (saved === undefined) delete env.NODE_PENDING_PIPE_INSTANCES;
    else env.NODE_PENDING_PIPE_INSTANCES = saved;
  }
  if (server._handle == null) return null;
  // The pipe alone never keeps Node running: the sockets of live children do.
  server.unref();
  return server;
}
