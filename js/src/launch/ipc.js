// A helper-mode child's IPC channel, the JS half: Node's framing both ways (the helper
// relays bytes without parsing them), send callbacks from the helper's `sent`
// acknowledgements, backpressure, and the channel's end.
import { SERIALIZATIONS } from "./ipc-serialization.js";
import { MAX_DATA_CHUNK } from "../protocol/generated.js";
import { OUTPUT_CREDIT } from "../protocol/spawn-request.js";
import { errnoError, ipcChannelClosed } from "../core/errors.js";

/**
 * send() returns false while more than this many bytes are not yet written to the
 * channel: child_process's threshold (its channel's writeQueueSize < 128 KiB).
 */
export const SEND_HIGH_WATER = 128 * 1024;
/**
 * At most this many bytes wait in the helper for one child's channel; the rest of what
 * the parent sent waits here. The helper serves every child, so one child that does not
 * read must not make it grow, and the memory stays with the code that chose to send.
 */
export const HELPER_SEND_WINDOW = 1024 * 1024;
/**
 * Read credit kept open for the channel. Messages are parsed as they arrive (Node reads
 * its channel without backpressure too), so this only sets how many round trips a
 * large message costs.
 */
export const IPC_READ_CREDIT = 1024 * 1024;

/**
 * A message of at most this many bytes sent without a callback goes as `send_quiet`:
 * the helper may hold its acknowledgement back and merge it into a later one (see
 * schema/README.md), so a request/reply exchange wakes Node once per reply instead of
 * also once per `sent`. Larger ones are acknowledged at once: the window needs it.
 */
export const QUIET_SEND_MAX = 16 * 1024;

const INTERNAL_PREFIX = "NODE_";

/** Node's rule for its own messages (cluster, handle passing): never user 'message's. */
function isInternal(message) {
  return message !== null && typeof message === "object" && typeof message.cmd === "string" &&
    message.cmd.length > INTERNAL_PREFIX.length && message.cmd.startsWith(INTERNAL_PREFIX);
}

/** The parent's end of one child's channel. */
export class HelperIpc {
  /** Relayed in frames: the helper reports the channel's end (launch/node-channel.js is not). */
  relayed = true;
  #child;
  #serialization;
  #parser;
  #sendFrame;
  #grant;
  #readCredit = OUTPUT_CREDIT; // the spawn request's initial credit covers fd 3 too
  // Bytes handed to the helper and not yet acknowledged, and chunks not yet handed over.
  #inHelper = 0;
  #queue = [];
  #queuedBytes = 0;
  // Offsets in the stream of sent bytes: each pending callback fires once `#written`
  // passes its message's end.
  #offered = 0;
  #written = 0;
  /** @type {{ end: number, callback?: Function }[]} */
  #pending = [];
  #disconnecting = false;
  #closeSent = false;
  #ended = false;
  #failure = null;

  /**
   * @param {{ child: import("./host-child.js").HostChild, serialization: "json"|"advanced",
   *   sendFrame: (name: string, field: Uint8Array|number) => void, grant: (bytes: number) => void }} init
   *   sendFrame sends `[name, id, field]` for this child (`send` with bytes, `close_output`
   *   with fd 3); grant gives read credit for fd 3
   */
  constructor({ child, serialization, sendFrame, grant }) {
    // sendFrame("send_quiet", bytes) goes through the generic encoder, which copies the
    // bytes: cheap for the small messages it is used for.
    this.#child = child;
    this.#serialization = SERIALIZATIONS[serialization];
    this.#parser = this.#serialization.parser();
    this.#sendFrame = sendFrame;
    this.#grant = grant;
  }

  /** HostChild#send's backend: throws when the message cannot be serialized. */
  send(message, callback) {
    if (this.#failure) {
      this.#report(this.#failure, callback);
      return false;
    }
    const bytes = this.#serialization.encode(message);
    this.#enqueue(bytes, callback, callback === undefined && bytes.length <= QUIET_SEND_MAX);
    return this.#inHelper + this.#queuedBytes < SEND_HIGH_WATER;
  }

  /** HostChild#disconnect's backend: the helper closes the channel after queued sends. */
  disconnect() {
    this.#disconnecting = true;
    this.#pump();
  }

  /** `data` on fd 3. */
  receive(bytes) {
    this.#readCredit -= bytes.length;
    if (this.#readCredit <= IPC_READ_CREDIT / 2) {
      this.#grant(IPC_READ_CREDIT - this.#readCredit);
      this.#readCredit = IPC_READ_CREDIT;
    }
    // After our disconnect() (or a parse failure) the rest is read only to reach the end.
    if (this.#disconnecting || this.#parser === null) return;
    let messages;
    try {
      messages = this.#parser.push(bytes);
    } catch (error) {
      // child_process would throw this out of its event loop; a child that writes
      // something other than Node's framing to fd 3 is reported on the child instead.
      this.#parser = null;
      this.#child.deliver("error", error);
      return;
    }
    for (const message of messages) {
      if (!isInternal(message)) this.#child.receiveMessage(message);
      // The handle did not come through the helper: answer as Node does when a handle
      // is missing, so the child gives up on it (with a warning) instead of holding
      // every later message back waiting for an acknowledgement.
      else if (message.cmd === "NODE_HANDLE") this.#enqueue(this.#serialization.encode({ cmd: "NODE_HANDLE_NACK" }), () => {}, false);
      else this.#child.deliver("internalMessage", message, undefined);
    }
  }

  /** `eof` on fd 3: the child disconnected or exited, or our disconnect() completed. */
  eof() {
    this.#ended = true;
    this.#drop(ipcChannelClosed());
    this.#child.channelClosed();
  }

  /** `sent`: that many more bytes reached the channel. */
  acknowledge(bytes) {
    this.#inHelper -= bytes;
    this.#written += bytes;
    while (this.#pending.length > 0 && this.#pending[0].end <= this.#written) {
      this.#pending.shift().callback?.(null);
    }
    this.#pump();
  }

  /**
   * `send_error`: writing the channel failed (the child's end is gone); the helper
   * drops later sends. Their callbacks get the error. Nothing is emitted on the child:
   * child_process ignores a write that fails after send() returned (its write
   * request's completion does not look at the status), and a child killed with
   * messages unread must not raise an `error` that, unheard, ends the parent.
   */
  fail(code) {
    this.#failure = errnoError(code, "write");
    this.#drop(this.#failure);
  }

  /**
   * The launch is over for its user without this channel having ended: the process
   * never started (or is given up on). Sends made before it would have existed fail
   * with ERR_IPC_CHANNEL_CLOSED, on a later tick; no channel event follows.
   */
  abandon() {
    if (this.#ended) return;
    this.#ended = true;
    const error = ipcChannelClosed();
    this.#queue = [];
    this.#queuedBytes = 0;
    for (const { callback } of this.#pending.splice(0)) if (callback) process.nextTick(callback, error);
  }

  /** The helper went away: nothing more will be written or read. */
  gone(error) {
    this.#ended = true;
    this.#drop(error);
    this.#child.channelClosed();
  }

  #enqueue(bytes, callback, quiet) {
    for (let offset = 0; offset < bytes.length; offset += MAX_DATA_CHUNK) {
      this.#queue.push({ bytes: bytes.subarray(offset, offset + MAX_DATA_CHUNK), quiet });
    }
    this.#queuedBytes += bytes.length;
    this.#offered += bytes.length;
    this.#pending.push({ end: this.#offered, callback });
    this.#pump();
  }

  #pump() {
    if (this.#ended || this.#failure) return;
    while (this.#queue.length > 0 && this.#inHelper < HELPER_SEND_WINDOW) {
      const { bytes, quiet } = this.#queue.shift();
      this.#queuedBytes -= bytes.length;
      this.#inHelper += bytes.length;
      this.#sendFrame(quiet ? "send_quiet" : "send", bytes);
    }
    if (this.#disconnecting && this.#queue.length === 0 && !this.#closeSent) {
      this.#closeSent = true;
      this.#sendFrame("close_output", 3);
    }
  }

  // Ends every send still waiting; returns whether one of them had no callback.
  #drop(error) {
    this.#queue = [];
    this.#queuedBytes = 0;
    let unheard = false;
    for (const { callback } of this.#pending.splice(0)) {
      if (callback) callback(error);
      else unheard = true;
    }
    return unheard;
  }

  #report(error, callback) {
    if (callback) process.nextTick(callback, error);
    else process.nextTick(() => this.#child.emit("error", error));
  }
}
