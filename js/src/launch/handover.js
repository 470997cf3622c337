// The other "child streams" of a launch (docs/architecture.md): the helper hands the
// parent end of each piped stdio socketpair to Node (helper/handles.js), and Node reads
// and writes it itself as the net.Socket child_process would give, with the socket's
// own backpressure. On Windows the helper connects the child's stdio to a pipe Node
// listens on instead (helper/stream-pipes.js), behind the same inbox interface. The
// sockets exist at once (the drop-in returns its ChildProcess synchronously) and get
// their handles when the helper's hand-overs arrive; `spawn` waits for both. The IPC
// channel of a fork is Node's own where the helper listens for it
// (launch/node-channel.js), else it relays (launch/relay.js).
import { LaunchRelay } from "./relay.js";
import { NodeChannel } from "./node-channel.js";
import { adopt, endPending, pendingSocket } from "./handed-socket.js";
import { stopGivenStreams } from "./given-stdio.js";

/**
 * The child streams of one launch, chosen by the helper it goes to: handed over where
 * the helper hands descriptors to Node (channel.handles) and the call hands out
 * streams; relayed otherwise, and for execFile, whose output the helper gathers
 * (maxBuffer there) for the cheapest path.
 * @returns {LaunchRelay}
 */
export function childStreams(channel, request, child, hooks) {
  // A terminal's output is the helper's to relay (it holds the terminal), unless Node
  // holds the master (given as stdio[0], docs/pty.md), when nothing is piped.
  const relayedTerminal = request.pty && request.stdio.includes("pipe");
  const Streams = channel.handles?.receives && request.kind === "spawn" && !relayedTerminal ? LaunchHandover : LaunchRelay;
  return new Streams(channel, request, child, hooks);
}

/** A launch's stdio handed over by the helper; its IPC channel relayed. */
export class LaunchHandover extends LaunchRelay {
  // Set in _createStdio, which the base constructor calls, so no class fields here
  // (they would be set after it): _sockets ({ fd, socket }[]), _inbox (the channel's
  // HandleInbox), _claim ({ id, pid } while the hand-overs are awaited), _scope (the
// launching call's async context: the handles were made in the helper channel's),
// _handOverLost (the launch's failure when a descriptor never reached Node), _pid
// (the process's, once spawned), _launch (the spawn options the inbox added: on
// Windows the launch's stream_token, which names its connections there).

  _createStdio(request, child, onStreamClosed, channel, scope, { handOverLost }) {
    // Streams given as stdio stop reading at once, as child_process's spawn stops them.
    stopGivenStreams(request);
    this._inbox = channel.handles;
    this._scope = scope;
    this._handOverLost = handOverLost;
    this._claim = null;
    this._pid = 0;
    this._launch = {};
    this._sockets = [];
    const [stdin, stdout, stderr] = request.stdio.map((kind, fd) => {
      if (kind !== "pipe") return null;
      const socket = pendingSocket(this._inbox.Pipe, fd > 0);
      this._sockets.push({ fd, socket });
      if (fd > 0) {
        // As child_process counts them: each output's close, not stdin's.
        this.streams++;
        socket.on("close", () => scope.runInAsyncScope(onStreamClosed));
      }
      return socket;
    });
    child.attachStdio(stdin, stdout, stderr);
  }

  _createIpc(request, child, onStreamClosed) {
    if (!this._inbox.channelListener) return super._createIpc();
    this.ipc = new NodeChannel({ child, serialization: request.serialization, onEnd: onStreamClosed });
    this.streams++;
  }

  // The helper reports no end of the handed-over outputs: only a relayed channel's.
  get owed() {
    return this.ipc?.relayed ? 1 : 0;
  }

  spawnOptions(id) {
    if (this._sockets.length > 0) this._launch = this._inbox.launchOptions(this._sockets.map(({ fd }) => fd), id);
    const options = { handover: true, ...this._launch };
    return this.ipc && !this.ipc.relayed ? { ...options, ipc_connected: true } : options;
  }

  // Node's end of the channel connects now, just before the request that names it.
  beforeSpawn() {
    if (this.ipc && !this.ipc.relayed) this.ipc.connect(this._inbox.channelListener);
  }

  whenSpawned(pid, ready) {
    // No descriptors come for no pipe, nor for a launch the helper answered without a
    // process (pid 0: SPAWNHOST_HELPER_NULL_LAUNCHER, a test build's benchmark switch).
    if (this._sockets.length === 0) return ready([]);
    if (pid === 0) {
      this.endOutputs();
      return ready([]);
    }
    this._startHolding();
    this._claim = { id: this.id, pid };
    const fds = this._sockets.map(({ fd }) => fd);
    // `first`: bytes that came with a connection's first read on Windows, the stream's.
    const adoptAll = (handles, first) => this._scope.runInAsyncScope(() => {
      this._claim = null;
      for (const { fd, socket } of this._sockets) {
        adopt(socket, handles.get(fd), fd > 0, this._scope);
        if (first?.has(fd) && !socket.destroyed) socket.unshift(first.get(fd));
      }
      ready(this.release());
    });
    this._pid = pid;
    const outputs = fds.includes(1) && fds.includes(2);
    this._inbox.claim(this.id, pid, fds, adoptAll, () => {
      this._claim = null;
      this._handOverLost();
    }, outputs ? () => this._scope.runInAsyncScope(() => this._stderrFirst()) : undefined, this._launch);
  }

  // The helper saw stderr become readable before stdout. A thread busy since spawn()
  // finds both readable when it first polls the adopted sockets, and libuv reads them
  // in the order their watchers joined its queue (epoll's ready list keeps the order
  // of EPOLL_CTL_ADD): stdout's, adopted first. The helper's line comes before them in
  // the poll that finds them (the channel is still readable when they are added) or
  // in an earlier one. Stdout stops reading for this poll (libuv skips an event whose
  // watcher stopped, and forgets its place in the queue) and starts again after it
  // (setImmediate), behind stderr: read in the order the outputs became readable, as
  // child_process's own pipes, watched from inside spawn(), are. Too late once stdout
  // has read something; nothing to move while it does not read.
  _stderrFirst() {
    const stdout = this._sockets.find(({ fd }) => fd === 1).socket;
    const handle = stdout._handle;
    if (stdout.connecting || !handle?.reading || stdout.bytesRead > 0) return;
    handle.readStop();
    setImmediate(() => {
      // Node's own reading state is untouched: a pause meanwhile cleared it.
      if (stdout._handle === handle && handle.reading && !stdout.destroyed) handle.readStart();
    });
  }

  // The exit comes on the helper's socket, the output on the child's, both ready in
  // the same poll at the latest (the child wrote before it exited), or in the next
  // one for sockets adopted just now: the exit waits for that poll, and so follows
  // the outputs' ends as child_process's does (Node 20's order).
  afterOutputsRead(deliver) {
    setImmediate(() => setImmediate(deliver));
  }

  abandonSpawned(pid) {
    if (this._sockets.length > 0) this._inbox.discard(this.id, pid, this._launch);
  }

  close() {
    super.close();
    if (this._pid) this._inbox.settled(this.id, this._pid, this._launch);
    if (this._claim) this._inbox.discard(this._claim.id, this._claim.pid, this._launch);
    this._claim = null;
    this._inbox.released(this._launch);
    for (const { fd, socket } of this._sockets) endPending(socket, fd > 0);
  }

  endOutputs() {
    for (const { fd, socket } of this._sockets) endPending(socket, fd > 0);
  }

  // Node holds the sockets: what the child wrote stays readable, and they end when
  // the child (ended by its parent-death signal or the orphan guard) closes its side.
  lost() {
    for (const { fd, socket } of this._sockets) {
      if (socket.connecting) endPending(socket, fd > 0);
      else if (fd === 0) socket.destroy();
    }
    return false;
  }
}
