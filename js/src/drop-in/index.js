// spawnhost/child_process: node:child_process's API, with every launch it can take sent
// to the spawnhost helper. Swap `node:child_process` for this module in an import (or
// load spawnhost/register to swap it for the whole process).
import { nodeChildProcess } from "./shared-host.js";
import { exec, execFile, fork, spawn } from "./launch.js";
import { execFileSync, execSync, spawnSync } from "./sync.js";

export { exec, execFile, fork, spawn } from "./launch.js";
export { execFileSync, execSync, spawnSync } from "./sync.js";
export { configure, stats } from "./shared-host.js";

/**
 * node:child_process's own ChildProcess class. Children this module returns are
 * instances of it (`child instanceof ChildProcess`), as are Node's.
 */
export const ChildProcess = nodeChildProcess.ChildProcess;

/** The same functions as one object, for `import childProcess from "spawnhost/child_process"`. */
export default { ChildProcess, exec, execFile, execFileSync, execSync, fork, spawn, spawnSync };
