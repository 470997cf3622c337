// A descriptor of Node's sent to the helper at once, on Node's IPC channel to it, for a
// thread about to block on the answer (a terminal's pid, launch/helper-launch.js).
// Node's own `helper.send(message, handle)` holds every handle after the first until
// Node's loop has read the helper's ACK for it: a second terminal started in the same
// tick would wait for a loop turn that a blocked thread never gives. Here the line
// {"cmd":"NODE_SPAWNHOST_GIVE","token":T} goes with its descriptor straight to the
// channel's handle, which the helper takes without an ACK (helper/posix/node_ipc.cpp).

let writeWrapClass;

// Node's WriteWrap, the request object a stream handle's write takes; null where
// process.binding no longer gives it (the give then takes Node's way).
function writeWrap() {
  if (writeWrapClass !== undefined) return writeWrapClass;
  try {
    const { WriteWrap } = process.binding("stream_wrap");
    writeWrapClass = typeof WriteWrap === "function" ? WriteWrap : null;
  } catch {
    writeWrapClass = null;
  }
  return writeWrapClass;
}

/**
 * The raw handle of `helper`'s IPC channel: Node keeps it under a symbol of the
 * ChildProcess. Undefined where it is not found.
 * @param {import("node:child_process").ChildProcess} helper
 */
export function channelHandleOf(helper) {
  const symbol = Object.getOwnPropertySymbols(helper).find((s) => s.description === "kChannelHandle");
  return symbol && helper[symbol];
}

/**
 * Writes `message` (an object with `cmd` NODE_SPAWNHOST_GIVE) with `handle`'s descriptor.
 * @returns {"written"|"queued"|null} written: in the kernel's socket buffer now, the helper
 *   will read it; queued: libuv sends it once the channel drains (on this loop); null:
 *   not sent (no channel handle or WriteWrap here, or the write failed).
 */
export function giveNow(helper, message, handle) {
  const channel = channelHandleOf(helper);
  const WriteWrap = writeWrap();
  if (!WriteWrap || typeof channel?.writeUtf8String !== "function" || !(handle?.fd >= 0)) return null;
  const request = new WriteWrap();
  request.oncomplete = () => {};
  if (channel.writeUtf8String(request, `${JSON.stringify(message)}\n`, handle) !== 0) return null;
  return channel.writeQueueSize === 0 ? "written" : "queued";
}
