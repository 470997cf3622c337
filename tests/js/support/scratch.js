// A fresh directory under the system's temporary directory for one test file, removed
// when that test process exits, so that runs leave nothing behind in /tmp.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = [];
process.once("exit", () => {
  for (const dir of made) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // a test made part of it unremovable (permissions): the rest still goes
    }
  }
});

/** mkdtempSync under tmpdir() with `prefix`, removed at exit. */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
