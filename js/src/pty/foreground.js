// The name of a terminal's foreground process (node-pty's `process`): on Linux the
// controlling terminal's foreground group (field tpgid of /proc/<pid>/stat, which the
// kernel fills from the terminal of the child's session) and that leader's comm. Read
// by Node from /proc: no round trip to the helper. Elsewhere, or when the group is
// gone, the file the terminal was started with.
import { readFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * @param {number|undefined} pid the terminal's session leader
 * @param {string} file what spawn() was given
 * @returns {string}
 */
export function foregroundName(pid, file) {
  if (process.platform === "linux" && pid > 0) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      // pid (comm) state ppid pgrp session tty_nr tpgid ...: comm may hold spaces and ')'.
      const tpgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[5]);
      if (tpgid > 0) return readFileSync(`/proc/${tpgid}/comm`, "utf8").replace(/\n$/, "");
    } catch {
      // Exited, or the group is gone: the file below.
    }
  }
  return basename(file);
}
