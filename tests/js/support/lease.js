// Holding a program's launch inside exec: a write lease on the file (taken by perl,
// F_SETLEASE) makes exec's open of it wait until the holder lets go (or the kernel's
// lease-break time passes), so a launch is deterministically in progress, not queued.
import { spawn } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { once } from "./modes.js";
import { scratchDir } from "./scratch.js";

export const HOLD_WRITE_LEASE = '$SIG{IO} = "IGNORE"; open(my $f, "<", $ARGV[0]) or die "open: $!"; fcntl($f, 1024, 1) or die "lease: $!"; $| = 1; print "held\\n"; select(undef, undef, undef, $ARGV[1] // 120)';

/**
 * Writes an executable shell script (`body`, default: exit 0) and holds a write lease on
 * it for `seconds`.
 * @returns {Promise<{ dir: string, program: string, holder: import("node:child_process").ChildProcess }>}
 *   once the lease is held
 */
export async function leasedProgram(seconds, body = "exit 0") {
  const dir = scratchDir("spawnhost-leased-");
  const program = `${dir}/blocker.sh`;
  writeFileSync(program, `#!/bin/sh\n${body}\n`);
  chmodSync(program, 0o755);
  const holder = spawn("perl", ["-e", HOLD_WRITE_LEASE, program, String(seconds)], { stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = await once(holder.stdout, "data");
  if (chunk.toString() !== "held\n") throw new Error(`the lease holder said ${JSON.stringify(chunk.toString())}`);
  return { dir, program, holder };
}
