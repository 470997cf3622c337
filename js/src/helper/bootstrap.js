// The bootstrap: a POSIX-sh script run on the far side of a transport, which finds or
// receives the static helper for that machine and execs it, so the remote needs no
// Node, no package, no agent. What it writes, and where, is in docs/remote.md.
//
// Conversation (text lines on the transport's stdout, each starting "spawnhost-bootstrap ",
// before the first protocol frame; anything else the login shell prints is ignored):
//   cached helper:  → "ready <platform> <uname -s> <uname -m> cached", exec  (one round trip)
//   no helper:      → "need <platform> <size>"; Node writes exactly <size> bytes of the
//                   helper; the script checks size and SHA-256, installs it atomically
//                   (rename), → "ready ... uploaded", exec
//   anything wrong: → "fail <why>", exit non-zero, nothing installed
// Node writes nothing else to stdin before "ready": the helper's frames come after it.
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { findPlatformHelper } from "./platform-package.js";
import { findHelper } from "./locate.js";

const PACKAGE_VERSION = createRequire(import.meta.url)("../../package.json").version;
export const BOOTSTRAP_MARKER = "spawnhost-bootstrap ";
const MAX_PREAMBLE_BYTES = 64 * 1024;

// $1 version, $2 cache dir ("" = default), then platform=sha256:size entries, "--",
// then the helper's own arguments. umask 077: the cache is the user's alone. The
// upload goes to a file named by this shell's pid and is renamed into place only once
// verified, so a truncated or tampered upload never becomes the cached helper, and two
// hosts bootstrapping the same account at once do not collide.
// Trust, as ssh trusts a key file: the helper's file, its directory and the cache must
// be this user's and writable by nobody else, and each directory above them this
// user's or root's and not writable by others (unless sticky, as /tmp): otherwise
// another user could put a program of theirs where this one runs it. The upload file
// is created only where nothing is (noclobber, after checking that no file or link is
// there), never written through what someone planted.
export const BOOTSTRAP_SCRIPT = `umask 077
say() { printf 'spawnhost-bootstrap %s\\n' "$*"; }
hashof() { if command -v sha256sum >/dev/null 2>&1; then sha256sum <"$1"; elif command -v shasum >/dev/null 2>&1; then shasum -a 256 <"$1"; else openssl dgst -sha256 -r <"$1"; fi | { read -r h _; printf %s "$h"; }; }
trusted() {
l=$(ls -ldnL "$1" 2>/dev/null) || { say "fail cannot inspect $1"; exit 8; }
set -f; set -- "$1" "$2" $l; set +f
case $3 in ?????w*|????????w*) case $2$3 in above?????????[tT]*) ;; *) say "fail refusing $1: writable by group or others (as ssh refuses a key file; chmod go-w it)"; exit 8;; esac;; esac
[ "$5" = "$me" ] || { [ "$2" = above ] && [ "$5" = 0 ]; } || { say "fail refusing $1: owned by uid $5, not by this user ($me)"; exit 8; }
}
version=$1; cache=\${2:-\${XDG_CACHE_HOME:-$HOME/.cache}/spawnhost}; shift 2
case $cache in /*) ;; *) cache=$PWD/$cache;; esac
s=$(uname -s); m=$(uname -m); me=$(id -u)
case "$s" in Linux) o=linux;; Darwin) o=darwin;; *) o=$s;; esac
case "$m" in x86_64|amd64) a=x64;; aarch64|arm64) a=arm64;; *) a=$m;; esac
p=$o-$a; want=
while [ $# -gt 0 ] && [ "$1" != -- ]; do case "$1" in "$p="*) want=\${1#*=};; esac; shift; done
[ $# -gt 0 ] && shift
[ -n "$want" ] || { say "fail no helper for $p ($s $m) was offered"; exit 3; }
sha=\${want%%:*}; size=\${want#*:}
dir=$cache/$version-$sha; bin=$dir/spawnhost-helper
mkdir -p "$dir" || { say "fail cannot create $dir"; exit 4; }
trusted "$dir" mine; trusted "$cache" mine
up=$cache; while up=\${up%/*}; [ -n "$up" ]; do trusted "$up" above; done; trusted / above
if [ -e "$bin" ] || [ -h "$bin" ]; then
[ -h "$bin" ] && { say "fail refusing $bin: a symbolic link"; exit 8; }
[ -f "$bin" ] || { say "fail refusing $bin: not a regular file"; exit 8; }
trusted "$bin" mine
fi
if [ -x "$bin" ] && [ "$(hashof "$bin")" = "$sha" ]; then say "ready $p $s $m cached"; exec "$bin" "$@"; fi
tmp=$dir/.upload-$$
{ [ ! -e "$tmp" ] && [ ! -h "$tmp" ]; } || { say "fail refusing $tmp: something is there already, not created by this bootstrap"; exit 7; }
(set -C; : >"$tmp") 2>/dev/null || { say "fail cannot create $tmp"; exit 4; }
trap 'rm -f "$tmp"' EXIT
say "need $p $size"
head -c "$size" >"$tmp" || { say "fail cannot write $tmp"; exit 4; }
got=$(wc -c <"$tmp" | tr -d ' ')
[ "$got" = "$size" ] || { say "fail upload truncated: $got of $size bytes arrived"; exit 5; }
got=$(hashof "$tmp")
[ "$got" = "$sha" ] || { say "fail upload refused: its SHA-256 is $got, expected $sha"; exit 6; }
chmod 700 "$tmp" && mv -f "$tmp" "$bin" || { say "fail cannot install $bin"; exit 4; }
trap - EXIT
say "ready $p $s $m uploaded"
exec "$bin" "$@"`;

const hashes = new Map();

/** SHA-256 and size of a file, remembered while its size and mtime stay the same. */
export function fileDigest(path) {
  const { size, mtimeMs } = statSync(path);
  const key = `${path}\0${size}\0${mtimeMs}`;
  let digest = hashes.get(key);
  if (!digest) {
    const bytes = readFileSync(path);
    digest = { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length };
    hashes.set(key, digest);
  }
  return digest;
}

/**
 * The helpers the bootstrap may upload, by remote platform: the user's `helpers`
 * option wins; otherwise each installed platform package (@spawnhost/linux-x64, ...:
 * static binaries), and for this machine's own platform the helper this process would
 * run locally (helperPath, SPAWNHOST_HELPER_PATH, the package, a repository build).
 * @param {Record<string, string>|undefined} helpers
 * @param {string|undefined} localHelperPath ProcessHost's helperPath option
 * @returns {Record<string, string>} platform → local path
 */
export function uploadableHelpers(helpers, localHelperPath) {
  if (helpers) return { ...helpers };
  const found = {};
  for (const arch of ["x64", "arm64"]) {
    const inPackage = findPlatformHelper({ platform: "linux", arch });
    if (inPackage.path) found[`linux-${arch}`] = inPackage.path;
  }
  const own = `${process.platform}-${process.arch}`;
  if (process.platform === "linux" && !found[own]) {
    const local = findHelper(localHelperPath);
    if (local.path) found[own] = local.path;
  }
  return found;
}

/**
 * The remote command that bootstraps and starts the helper, as argv.
 * @param {{ cacheDir?: string, helpers: Record<string, string> }} how
 * @param {string[]} helperArgs the helper's own arguments
 */
export function bootstrapArgv({ cacheDir = "", helpers }, helperArgs) {
  const offers = Object.entries(helpers).map(([platform, path]) => {
    const { sha256, size } = fileDigest(path);
    return `${platform}=${sha256}:${size}`;
  });
  return ["sh", "-c", BOOTSTRAP_SCRIPT, "spawnhost-bootstrap", PACKAGE_VERSION, cacheDir, ...offers, "--", ...helperArgs];
}

/** Quotes argv for a POSIX shell (ssh hands its remote command to the login shell). */
export function shellJoin(argv) {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(" ");
}

/**
 * Reads the bootstrap's lines off the transport's stdout until "ready", answering
 * "need" with the upload; then hands on the bytes that follow (protocol frames).
 */
export class BootstrapReader {
  #pending = Buffer.alloc(0);
  #helpers;
  #upload;
  #seen = 0;
  /** Set by "ready": { platform, os, machine, how } */
  ready = null;
  /** Set by "fail", or by a broken conversation: why the bootstrap did not start a helper. */
  failure = null;

  /**
   * @param {Record<string, string>} helpers platform → local path
   * @param {(bytes: Buffer) => void} upload writes the helper to the transport's stdin
   */
  constructor(helpers, upload) {
    this.#helpers = helpers;
    this.#upload = upload;
  }

  /** @returns {Buffer|null} protocol bytes once "ready" was read, null while still bootstrapping */
  push(chunk) {
    this.#pending = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#seen += chunk.length;
    let newline;
    while (!this.ready && !this.failure && (newline = this.#pending.indexOf(10)) !== -1) {
      const line = this.#pending.subarray(0, newline).toString("utf8");
      this.#pending = this.#pending.subarray(newline + 1);
      if (line.startsWith(BOOTSTRAP_MARKER)) this.#onLine(line.slice(BOOTSTRAP_MARKER.length));
    }
    if (this.ready) return this.#pending;
    if (!this.failure && this.#seen > MAX_PREAMBLE_BYTES) this.failure = `it printed ${this.#seen} bytes without the bootstrap's "ready"`;
    return null;
  }

  #onLine(line) {
    const [word, ...rest] = line.split(" ");
    if (word === "ready") {
      const [platform, os, machine, how] = rest;
      this.ready = { platform, os, machine, how };
    } else if (word === "need") {
      const [platform, size] = rest;
      const path = this.#helpers[platform];
      if (!path) {
        this.failure = `the bootstrap asked for a helper for ${platform}, which was not offered`;
        return;
      }
      const bytes = readFileSync(path);
      if (String(bytes.length) !== size) {
        this.failure = `the helper ${path} changed while the bootstrap ran`;
        return;
      }
      this.#upload(bytes);
    } else if (word === "fail") {
      this.failure = `the bootstrap failed: ${rest.join(" ")}`;
    }
  }
}
