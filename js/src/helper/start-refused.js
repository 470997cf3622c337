// Why an intact helper may be refused by the OS it was built for, and what to do: the
// part of the broken-helper warning (helper/broken.js) that differs by platform.
//
// Windows: Smart App Control (Windows 11) and application control policies (WDAC,
// AppLocker) refuse to start programs that are not signed by a publisher they trust.
// CreateProcessW then fails with an error libuv has no name for, and Node's spawn
// throws `spawn UNKNOWN` (google-labs-code/jules-awesome-list#95); a denied access
// (ERROR_ACCESS_DENIED) is `spawn EPERM`. A helper that is simply broken fails
// otherwise (it exits, crashes or says nothing).
const REFUSED_ON = { win32: new Set(["UNKNOWN", "EPERM", "EACCES"]) };

/**
 * The likely cause and the fix, when `error` (what starting the helper threw or
 * emitted) is how `platform` refuses a program its policy does not allow; else null.
 * @param {Error & { code?: string, syscall?: string }} error
 * @param {string} [platform] default process.platform
 * @returns {string|null}
 */
export function refusedStartAdvice(error, platform = process.platform) {
  if (!REFUSED_ON[platform]?.has(error?.code) || !String(error?.syscall ?? "").startsWith("spawn")) return null;
  return "Windows most likely refused to run it: Smart App Control and application control policies " +
    "(WDAC, AppLocker) block programs that are not signed by a trusted publisher. " +
    "Fix: use a spawnhost release whose helper is signed, have your administrator allow that file, " +
    "or set SPAWNHOST_HELPER_PATH to a helper your policy allows.";
}
