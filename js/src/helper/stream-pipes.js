// The hand-over on Windows (docs/architecture.md, "Child streams"): Node cannot
// receive a handle of the helper's there (Node's IPC passes only sockets), so Node makes
// the pipes itself. One named pipe server per helper, on a name made here of random
// bytes (libuv creates its first instance with FILE_FLAG_FIRST_PIPE_INSTANCE: nobody
// can have made it first); the helper connects each piped stdio of a launch to it
// (helper/windows/node_pipes.cpp) and gives the child its end. The connection Node
// accepts is a Pipe of its own, read and written as the net.Socket child_process gives,
// with no helper between them.
// A name can be found (the pipe namespace can be listed), so anyone may connect: each
// launch carries a secret of 16 random bytes (spawn option stream_token, sent on the
// helper's stdin, which no other process holds), and the helper writes it and the fd's
// digit first on each connection. Node keeps a connection only if it starts with the
// secret of a launch still waiting for that fd; any other is closed, and a client that
// says nothing is closed after PREFIX_WAIT_MS. The launch does not wait on a foreign
// client: its own connections come beside it. A token is used once.
// This is the one JS module of the Windows hand-over: it has the interface of
// helper/handles.js's HandleInbox, which launch/handover.js uses.
import net from "node:net";
import { randomBytes } from "node:crypto";

/** Hex digits of a launch's secret, then one digit: the fd. */
const TOKEN_LENGTH = 32;
const PREFIX_LENGTH = TOKEN_LENGTH + 1;
/** How long a connection may take to say who it is; the helper's say it at once. */
const PREFIX_WAIT_MS = 10000;
// Instances of the pipe waiting for a client. The helper connects a launch's stdio
// before it creates the process, and takes an instance Node's thread need not be free
// for; Node makes another as it accepts one. A thread blocked in a synchronous call
// (the pid read right after spawn(), docs/sync.md) accepts none meanwhile: libuv's 4
// would stall the second launch of three pipes until that call gave up. 48 let every
// launch the helper runs at once by default (16 launch threads, 3 pipes each) connect.
// A loop of more spawn() and pid reads in one tick is a known bug (docs/architecture.md).
const PENDING_INSTANCES = 48;

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
  /** @type {Map<string, { expected: Set<number>, fds: Map<number, { handle: object, rest: Buffer }>, claim: object|null }>} by token */
  #launches = new Map();
  #closed = false;

  constructor(name) {
    this.name = name;
    // pauseOnConnect: nothing is read from a connection before it is known.
    this.#server = net.createServer({ pauseOnConnect: true }, (socket) => this.#accepted(socket));
    this.#server.on("error", () => this.close());
    // Node's own setting for a pipe server's instances (NODE_PENDING_PIPE_INSTANCES,
    // Windows only), read as the server's handle is made.
    const instances = process.env.NODE_PENDING_PIPE_INSTANCES;
    process.env.NODE_PENDING_PIPE_INSTANCES = String(PENDING_INSTANCES);
    try {
      // Binds at once (the 'listening' event only follows): the helper may connect
      // as soon as it has started.
      this.#server.listen(name);
    } catch {
      return;
    } finally {
      if (instances === undefined) delete process.env.NODE_PENDING_PIPE_INSTANCES;
      else process.env.NODE_PENDING_PIPE_INSTANCES = instances;
    }
    this.listening = this.#server._handle != null;
    this.Pipe = this.#server._handle?.constructor;
    // The pipe alone never keeps Node running: the sockets of live children do.
    this.#server.unref();
  }

  /**
   * The spawn options of a new launch whose piped stdio are `fds`: its secret, whose
   * connections are expected from now on, one for each of those fds.
   */
  launchOptions(fds) {
    const token = randomBytes(TOKEN_LENGTH / 2).toString("hex");
    this.#launches.set(token, { expected: new Set(fds), fds: new Map(), claim: null });
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
    this.#server.close();
    for (const launch of this.#launches.values()) {
      for (const { handle } of launch.fds.values()) handle.close();
    }
    this.#launches.clear();
  }

  // A connection says which launch and fd it is before anything else is read from it.
  #accepted(socket) {
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
      const launch = this.#closed ? undefined : this.#launches.get(bytes.toString("latin1", 0, TOKEN_LENGTH));
      const fd = bytes[TOKEN_LENGTH] - 0x30;
      if (!launch?.expected.has(fd) || launch.fds.has(fd)) return socket.destroy();
      // The handle leaves this socket, which then closes without closing it.
      socket._handle = null;
      socket.destroy();
      launch.fds.set(fd, { handle, rest: bytes.subarray(PREFIX_LENGTH) });
      this.#tryComplete(bytes.toString("latin1", 0, TOKEN_LENGTH));
    };
    socket.on("data", onData);
    // pauseOnConnect left it paused, which a 'data' listener does not undo.
    socket.resume();
  }

  #tryComplete(token) {
    const launch = this.#launches.get(token);
    const claim = launch?.claim;
    if (!claim || !claim.fds.every((fd) => launch.fds.has(fd))) return;
    // Spent: a connection that says the same later is refused.
    this.#launches.delete(token);
    const handles = new Map([...launch.fds].map(([fd, { handle }]) => [fd, handle]));
    const rests = [...launch.fds].filter(([, { rest }]) => rest.length > 0);
    claim.ready(handles, new Map(rests.map(([fd, { rest }]) => [fd, rest])));
  }
}
