// Types of spawnhost/child_process: node:child_process's own signatures (it is a
// drop-in), plus configure() and stats(). tests/js/types/drop-in-usage.ts uses them.
/// <reference types="node" />
import * as nodeChildProcess from "node:child_process";

export type * from "node:child_process";
export { ChildProcess } from "node:child_process";

/** node:child_process.spawn, through the spawnhost helper. */
export const spawn: typeof nodeChildProcess.spawn;
/** node:child_process.exec, through the spawnhost helper; util.promisify gives { stdout, stderr }. */
export const exec: typeof nodeChildProcess.exec;
/** node:child_process.execFile, through the spawnhost helper; util.promisify gives { stdout, stderr }. */
export const execFile: typeof nodeChildProcess.execFile;
/** node:child_process.fork, through the spawnhost helper. */
export const fork: typeof nodeChildProcess.fork;
/** node:child_process.spawnSync. */
export const spawnSync: typeof nodeChildProcess.spawnSync;
/** node:child_process.execSync. */
export const execSync: typeof nodeChildProcess.execSync;
/** node:child_process.execFileSync. */
export const execFileSync: typeof nodeChildProcess.execFileSync;

/** Options of the shared host behind this module (a subset of ProcessHost's). */
export interface DropInOptions {
  /** How many launches the helper runs at once. */
  maxLaunchThreads?: number;
  /** When Node ends: how long children get after their killSignal before SIGKILL. Default 5000. */
  killGraceMs?: number;
  /** The helper executable. Default: SPAWNHOST_HELPER_PATH, then the platform package. */
  helperPath?: string;
  /** No helper for this platform: "inline" (default) leaves every call to node:child_process; "error" fails each launch. */
  fallback?: "inline" | "error";
  /** How long the helper may owe an answer before it counts as hung. Default 10000. */
  helperTimeoutMs?: number;
}

/** Sets the shared host's options; the next launch uses them. Also: SPAWNHOST_OPTIONS (JSON). */
export function configure(options: DropInOptions): void;

/** How this module's launches went. */
export interface DropInStats {
  /** Launches sent to the helper. */
  helper: number;
  /** Launches node:child_process ran instead. */
  fallback: number;
  /** Why they fell back, with how often. */
  fallbackReasons: Record<string, number>;
  /** The shared host's mode, or "not started" before the first launch. */
  mode: "helper" | "inline" | "not started";
}

/** How this module's launches went: through the helper or node:child_process, with reasons. */
export function stats(): DropInStats;

declare const childProcess: {
  ChildProcess: typeof nodeChildProcess.ChildProcess;
  spawn: typeof spawn;
  exec: typeof exec;
  execFile: typeof execFile;
  fork: typeof fork;
  spawnSync: typeof spawnSync;
  execSync: typeof execSync;
  execFileSync: typeof execFileSync;
};
export default childProcess;
