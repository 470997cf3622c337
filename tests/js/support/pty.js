// Helpers for the spawnhost/pty suites (tests/js/pty*.test.js): which way the master
// goes, and waiting on a terminal's output and exit.
import { modes } from "./modes.js";

/** Why the pty suites cannot run here, or false. */
export const ptySkip = !modes().includes("helper") ? "pty needs helper mode" : process.platform !== "linux" ? "terminals are built for Linux only (docs/pty.md)" : false;

/** True where Node reads the master itself; false where the helper relays it. */
export const handsOver = process.env.SPAWNHOST_STREAMS !== "relay";

/**
 * Everything a terminal shows until its exit: { out, exit, chunks }. `out` is the
 * joined text (or a Buffer with encoding null).
 */
export function untilExit(term) {
  const chunks = [];
  term.onData((chunk) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    term.on("error", reject);
    term.onExit((exit) => {
      const out = chunks.length > 0 && Buffer.isBuffer(chunks[0]) ? Buffer.concat(chunks) : chunks.join("");
      resolve({ out, exit, chunks });
    });
  });
}

/** Resolves with all output so far once it matches `pattern`; rejects after `ms`. */
export function waitFor(term, pattern, ms = 15000) {
  let seen = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${pattern}; output: ${JSON.stringify(seen)}`));
    }, ms);
    const sub = term.onData((chunk) => {
      seen += chunk;
      if (pattern.test(seen)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(seen);
      }
    });
  });
}
