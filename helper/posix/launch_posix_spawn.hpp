// The portable launcher: process creation with posix_spawn only, so that the code the
// macOS helper runs is the code tested on Linux (SPAWNHOST_HELPER_POSIX_SPAWN=1 chooses
// it there; the macOS helper has no other). What differs between the platforms is the
// handful of hooks at the bottom, one file per platform:
// helper/posix/posix_spawn_linux.cpp and helper/darwin/posix_spawn_darwin.cpp.
//
// What it does not do, by design of posix_spawn:
// - uid/gid: posix_spawn cannot change credentials. On Linux such a launch goes to the
//   clone launcher (process.cpp); on macOS it fails with ENOTSUP, stage "setuid".
// - a parent-death signal: nothing ends a child when the helper is SIGKILLed. See
//   docs/macos.md for what happens then and what reduces it.
#pragma once
#include <signal.h>
#include <spawn.h>

#include <string>
#include <system_error>

#include "process.hpp"

namespace spawnhost {

// Creates the process described by `request` with posix_spawn. Blocking; all
// descriptors it opens are close-on-exec; the child gets only its stdio (and IPC).
launched_process launch_with_posix_spawn(const spawn_request& request, const launch_context& context) noexcept;

// True when SPAWNHOST_HELPER_POSIX_SPAWN=1 was set at helper start: the Linux helper
// then launches with posix_spawn instead of clone (read once).
bool posix_spawn_launcher_chosen() noexcept;

// Per-platform hooks.
namespace posix_spawn_platform {
// Flags beyond the portable ones (macOS: POSIX_SPAWN_CLOEXEC_DEFAULT).
short extra_flags() noexcept;
// Adds the file actions that close every descriptor from `first` up in the child (Linux:
// addclosefrom_np). Returns 0 or an errno; a no-op where extra_flags already does it.
int close_from(posix_spawn_file_actions_t* actions, int first) noexcept;
// Adds to the SETSIGDEF set the signals the C library keeps for itself, which the
// portable sigaddset refuses (glibc: 32 and 33, else left ignored in the child).
void add_reserved_signals(sigset_t& set) noexcept;
// A connected stream socket pair, both ends close-on-exec.
int cloexec_socketpair(int ends[2]) noexcept;
// The directory of process `pid` as a path the child can chdir to, or "" if the
// platform has none (spawn option node_cwd: Node's own directory, deleted or not).
std::string process_cwd_path(int pid);
// What the exit watch waits on for `pid` (a pidfd; a kqueue with EVFILT_PROC/NOTE_EXIT),
// or an invalid handle when SIGCHLD must do (then no error).
std::error_code open_exit_handle(int pid, os_handle& out) noexcept;
}  // namespace posix_spawn_platform

}  // namespace spawnhost
