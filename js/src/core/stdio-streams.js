// Which `stdio` entries are streams of Node's, to be given to the child as child_process
// gives them (its getValidStdio, "wrap"): a Pipe or TCP handle, or an object that has
// one as `handle` or `_handle` (a net.Socket, another child's stdout). Integers and
// objects with a numeric `fd` are descriptors, decided before this, as Node does.

/** Node's stream handles, known by their class names (Pipe, TCP), which Node does not export. */
export function isStreamHandle(value) {
  const name = value?.constructor?.name;
  return (name === "Pipe" || name === "TCP") && typeof value.readStop === "function";
}

/** The handle child_process would give the child for `entry`, in its order: the entry itself, its `handle`, its `_handle`; null when none is a Pipe or TCP. */
export function streamHandle(entry) {
  if (entry === null || typeof entry !== "object") return null;
  for (const candidate of [entry, entry.handle, entry._handle]) {
    if (isStreamHandle(candidate)) return candidate;
  }
  return null;
}

/** Whether `entry` is a stream whose handle can be given to a child. */
export function isGivenStream(entry) {
  return streamHandle(entry) !== null;
}

/** Marks a stream given to a child: child_process stops reading it, and does not drain it at its own child's exit. */
export const USED_AS_STDIO = Symbol("spawnhost.usedAsStdio");
