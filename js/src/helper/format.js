// Tells, from its first bytes, whether a helper file is an executable of another
// operating system (a Mach-O on Linux, an ELF on macOS, a PE anywhere but Windows).
// Such a file can only fail with ENOEXEC, so a host that would fall back to inline
// after that failure falls back at once: no launch is handed to a helper that cannot
// start (the drop-in face returns its child before the helper has said hello).
// Scripts (#!) and other architectures of the right format are left to the real start:
// a binfmt_misc emulator may well run them.
import { closeSync, openSync, readSync } from "node:fs";

const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe, 0xbebafeca]);

/**
 * The format of the file at `path` when it is an executable format `platform` cannot
 * run ("Mach-O", "ELF", "PE"), else null (including when it cannot be read: the start
 * reports that better).
 * @param {string} path
 * @param {string} [platform] default process.platform
 * @returns {string|null}
 */
export function foreignExecutableFormat(path, platform = process.platform) {
  const head = readHead(path, 4);
  if (head === null || head.length < 4) return null;
  const format = head.readUInt32BE(0) === 0x7f454c46 ? "ELF"
    : MACH_O_MAGICS.has(head.readUInt32BE(0)) ? "Mach-O"
      : head[0] === 0x4d && head[1] === 0x5a ? "PE" : null;
  const native = { linux: "ELF", darwin: "Mach-O", win32: "PE" }[platform];
  return format !== null && native !== undefined && format !== native ? format : null;
}

function readHead(path, length) {
  let fd;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0));
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
