// js/src is laid out in folders by concern, and imports point down: a file may import
// its own folder and the folders its row of docs/architecture.md's folder map names,
// which are all below it in that map. The map is the one statement of the order; this
// test reads it, so the docs and the code cannot drift apart. The C++ helper is laid out
// the same way, in rooms whose order is HELPER_ROOMS below. Also: no file in js/src or
// in the C++ helper over 400 lines (small enough to read in one sitting).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const src = join(root, "js", "src");
const MAX_LINES = 400;

/** The folder map: [{ folder, mayImport: Set }] in the map's order, top first. */
function folderMap() {
  const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
  const section = doc.split(/^## /m).find((s) => s.startsWith("The folders"));
  assert.ok(section, "docs/architecture.md has a section \"## The folders\"");
  const rows = section.split("\n").filter((l) => /^\| `/.test(l));
  return rows.map((row) => {
    const cells = row.split("|").slice(1, -1).map((c) => c.trim());
    const folder = cells[0].match(/`([^`]+)`/)[1].replace(/\/$/, "");
    const mayImport = new Set([...cells[2].matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\/$/, "")));
    return { folder, mayImport };
  });
}

function* sourceFiles(dir = src, pattern = /\.js$/) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path, pattern);
    else if (pattern.test(entry.name)) yield path;
  }
}

/** A file's folder in the map's terms: its directory under js/src, "." at the top. */
const folderOf = (file) => posix.dirname(relative(src, file).split("\\").join("/"));

/** The relative modules a file loads at run time (comments, and so JSDoc types, left out). */
function runtimeImports(file) {
  const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const specs = [];
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"']+)\1/g)) specs.push(m[2]);
  return specs;
}

test("the folder map orders the folders: each may import only folders below it", () => {
  const map = folderMap();
  const rank = new Map(map.map((row, i) => [row.folder, i]));
  for (const { folder, mayImport } of map) {
    for (const other of mayImport) {
      assert.ok(rank.has(other), `${folder}: may import ${other}, which is not in the map`);
      assert.ok(rank.get(other) > rank.get(folder), `${folder} may import ${other}, which is above it in the map`);
    }
  }
});

test("every folder of js/src is in the folder map", () => {
  const folders = new Set([...sourceFiles()].map(folderOf));
  const mapped = new Set(folderMap().map((row) => row.folder));
  for (const folder of folders) assert.ok(mapped.has(folder), `js/src/${folder} is not in docs/architecture.md's folder map`);
});

test("every import in js/src points to its own folder or one its row of the map names", () => {
  const rows = new Map(folderMap().map((row) => [row.folder, row]));
  const wrong = [];
  for (const file of sourceFiles()) {
    const from = folderOf(file);
    for (const spec of runtimeImports(file)) {
      const target = posix.normalize(posix.join(from, spec));
      const to = posix.dirname(target);
      if (to === from || rows.get(from)?.mayImport.has(to)) continue;
      wrong.push(`js/src/${from}/${posix.basename(file)} imports ${spec} (${to}/), which ${from}/ may not import`);
    }
  }
  assert.deepEqual(wrong, []);
});

// Rooms talk through named interfaces: what one folder of js/src offers another is a
// documented method without an underscore, so an underscore method (or getter) is used
// only in the folder that defines it.
// Node's stream protocol: the methods a stream subclass defines for Node's stream code
// to call (and `_handle`, what ChildProcess#kill drives), called across folders by
// design.
const NODE_PROTOCOL = new Set(["_read", "_write", "_writev", "_final", "_destroy", "_construct", "_transform", "_flush", "_undestroy", "_handle"]);
/** Source without comments (JSDoc and docs may name the methods). */
const codeOf = (file) => readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, "")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");

test("no file of js/src calls an underscore method (or reads an underscore getter) defined in another folder", () => {
  const files = [...sourceFiles()];
  /** @type {Map<string, Set<string>>} method name -> folders defining it */
  const defined = new Map();
  const define = (name, folder) => defined.set(name, (defined.get(name) ?? new Set()).add(folder));
  for (const file of files) {
    const code = codeOf(file);
    for (const m of code.matchAll(/^\s*(?:static\s+)?(?:async\s+)?(?:get\s+|set\s+)?(_[A-Za-z]\w*)\s*\([^)]*\)\s*\{/gm)) define(m[1], folderOf(file));
    for (const m of code.matchAll(/\.(_[A-Za-z]\w*)\s*=\s*(?:function|\(|async)/g)) define(m[1], folderOf(file));
  }
  const crossing = [];
  for (const file of files) {
    const from = folderOf(file);
    const lines = codeOf(file).split("\n");
    for (const [index, line] of lines.entries()) {
      for (const m of line.matchAll(/\.(_[A-Za-z]\w*)\b/g)) {
        const name = m[1];
        if (!defined.has(name) || defined.get(name).has(from) || NODE_PROTOCOL.has(name)) continue;
        crossing.push(`js/src/${relative(src, file)}:${index + 1} uses ${name}, defined in ${[...defined.get(name)].join(", ")}/`);
      }
    }
  }
  assert.deepEqual(crossing, []);
});

/** The files of `files` over MAX_LINES lines, each with its count. */
function overLong(files) {
  const long = [];
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n").length - 1;
    if (lines > MAX_LINES) long.push(`${relative(root, file)}: ${lines} lines`);
  }
  return long;
}

test(`no file in js/src is over ${MAX_LINES} lines`, () => {
  assert.deepEqual(overLong(sourceFiles()), []);
});

test(`no file of the C++ helper is over ${MAX_LINES} lines`, () => {
  assert.deepEqual(overLong(sourceFiles(join(root, "helper"), /\.(cpp|hpp)$/)), []);
});

// The helper's rooms, lowest first: a file may include its own room or one below it.
// Seams come below the platform rooms that implement them (launch/process.hpp,
// sync/sync_socket.hpp, pty/terminal.hpp...), the platforms below the session that
// uses them, and main.cpp, alone at the root, on top.
//   base      owned handles (unique_fd, os_handle per platform), the test-build switches
//   protocol  frames, their decoder, the messages, encode/decode, generated protocol
//   launch    the launch pool and the seams a platform implements to launch and hand over
//   sync      the sync channel's socket
//   pty       terminal children
//   posix     what Linux and macOS share; linux and darwin build on it
//   linux, darwin, windows   each platform's own
//   session   a session and what it owns: the channel to Node, its children, shutdown
const HELPER_ROOMS = ["base", "protocol", "launch", "sync", "pty", "posix", "linux", "darwin", "windows", "session", "."];
const helperRoot = join(root, "helper");
// Headers each platform supplies under one name (CMake puts the platform's directories
// on the include path): an include of one may reach any of these.
const PLATFORM_INCLUDE_DIRS = { posix: ["posix", "base/posix"], windows: ["windows", "base/windows"] };

/** A helper file's room: its first folder under helper/ ("." for main.cpp). */
const roomOf = (file) => relative(helperRoot, file).split(/[\\/]/).slice(0, -1)[0] ?? ".";

/** The helper files an #include "..." may reach: the including file's folder, then
 *  helper/, then the platform include directories of the platforms that build it. */
function includeTargets(file, name) {
  for (const base of [dirname(file), helperRoot]) {
    const path = join(base, name);
    if (existsSync(path)) return [path];
  }
  const room = roomOf(file);
  const families = room === "windows" ? ["windows"] : ["posix", "linux", "darwin"].includes(room) ? ["posix"] : ["posix", "windows"];
  return families.flatMap((family) => PLATFORM_INCLUDE_DIRS[family].map((dir) => join(helperRoot, dir, name))).filter((path) => existsSync(path));
}

test("every room of helper/ is in the room order, and only main.cpp is at its root", () => {
  for (const file of sourceFiles(helperRoot, /\.(cpp|hpp)$/)) {
    const room = roomOf(file);
    assert.ok(HELPER_ROOMS.includes(room), `${relative(root, file)}: room ${room} is not in HELPER_ROOMS`);
    if (room === ".") assert.equal(relative(helperRoot, file), "main.cpp", "only main.cpp lives at helper/'s root");
  }
});

test("every #include of a helper file points to its own room or a lower one", () => {
  const wrong = [];
  const rank = (file) => HELPER_ROOMS.indexOf(roomOf(file));
  for (const file of sourceFiles(helperRoot, /\.(cpp|hpp)$/)) {
    for (const [, name] of readFileSync(file, "utf8").matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
      const targets = includeTargets(file, name);
      if (targets.length === 0) wrong.push(`${relative(root, file)} includes "${name}", which is no helper file`);
      for (const target of targets) {
        if (rank(target) > rank(file)) wrong.push(`${relative(root, file)} (${roomOf(file)}) includes ${relative(root, target)} (${roomOf(target)}), a room above it`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});
