// Which backends the behaviour tests run against: SPAWNHOST_TEST_MODES, default both.
// A missing helper binary makes helper-mode tests fail (the host throws), never skip.
import { ProcessHost } from "spawnhost";

/** @returns {("inline"|"helper")[]} */
export function modes() {
  const list = (process.env.SPAWNHOST_TEST_MODES || "inline,helper").split(",").map((m) => m.trim()).filter(Boolean);
  for (const mode of list) {
    if (mode !== "inline" && mode !== "helper") throw new Error(`SPAWNHOST_TEST_MODES: unknown mode "${mode}"`);
  }
  return list;
}

/**
 * A host for one test file; shut down by the caller's `after`. Helper mode never
 * falls back to inline here: without a helper, its tests must fail.
 */
export function hostFor(mode, options = {}) {
  const host = new ProcessHost({ mode, fallback: "error", ...options });
  if (host.mode !== mode) throw new Error(`asked for a ${mode} host, got ${host.mode}`);
  return host;
}

/** Resolves with the first `event` emitted by `emitter`, with its arguments. */
export function once(emitter, event) {
  return new Promise((resolve) => emitter.once(event, (...args) => resolve(args)));
}

/** Collects everything a readable stream yields, as a string. */
export async function readAll(stream) {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

/** Awaits a promise that must reject, and returns the rejection. */
export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to reject, but it resolved");
}
