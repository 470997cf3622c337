// What the tests read about processes from Linux /proc: alive or not, parent, zombies.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

// The fields of /proc/<pid>/stat after the command name (which may hold spaces):
// [state, ppid, ...]. Throws when the process is gone.
function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** True while `pid` exists and is not a zombie (a zombie is dead, just not collected). */
export function alive(pid) {
  try {
    return statFields(pid)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The parent of `pid`. */
export function parentOf(pid) {
  return Number(statFields(pid)[1]);
}

/** Waits up to `ms` for every pid to be gone; returns those still alive. */
export async function waitUntilGone(pids, ms) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!pids.some(alive)) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids.filter(alive);
}

function processes() {
  return readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** Children of `pid` whose command is the spawnhost helper. */
export function helperPidsOf(pid) {
  return processes().filter((entry) => {
    try {
      return readFileSync(`/proc/${entry}/stat`, "utf8").includes("(spawnhost-helpe") && parentOf(entry) === pid;
    } catch {
      return false;
    }
  });
}

/** Zombie children of `pid`: exited, and not reaped by it. */
export function zombieChildrenOf(pid) {
  return processes().filter((entry) => {
    try {
      const [state, ppid] = statFields(entry);
      return state === "Z" && Number(ppid) === pid;
    } catch {
      return false;
    }
  });
}

/** How many sockets `pid` holds open. */
export function openSockets(pid) {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}
