// The portable launcher: process creation with posix_spawn only, so that the code the
// macOS helper runs is the code tested on Linux (SPAWNHOST_HELPER_POSIX_SPAWN=1 chooses
// it there; the macOS helper has no other). What differs between the platforms is the
// handful of hooks at the bottom, one file per platform:
// helper/linux/posix_spawn_linux.cpp and helper/darwin/posix_spawn_darwin.cpp.
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

#include "launch/process.hpp"

namespace spawnhost {

// Creates the process described by `request` with posix_spawn. Blocking; all
// descriptors it opens are close-on-exec; the child gets only its stdio (and IPC).
launched_process launch_with_posix_spawn(const spawn_request& request, const launch_context& context) noexcept;

// Creates a terminal child with posix_spawn (pty_posix_spawn.cpp; pty/terminal.hpp says
// what a terminal launch gives). The macOS helper's terminal launcher, and the Linux
// helper's with SPAWNHOST_HELPER_POSIX_SPAWN=1.
launched_process launch_terminal_with_posix_spawn(const spawn_request& request, const launch_context& context) noexcept;

// True when SPAWNHOST_HELPER_POSIX_SPAWN=1 was set at helper start: the Linux helper
// then launches with posix_spawn instead of clone (read once).
bool posix_spawn_launcher_chosen() noexcept;

// What both posix_spawn launchers (this one and the terminal one) build a launch from.

// Owns a posix_spawn_file_actions_t / posix_spawnattr_t for one launch.
struct spawn_description {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  spawn_description() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~spawn_description() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  spawn_description(const spawn_description&) = delete;
  spawn_description& operator=(const spawn_description&) = delete;
};

// Signals as Node's children start: none blocked, every disposition the helper changed
// back to default. Sets them in `attributes` and adds the flags that apply them (and the
// platform's extra_flags) to `flags`; returns 0 or an errno.
int describe_signals(posix_spawnattr_t& attributes, short& flags);

// Where the child starts: the request's cwd, or Node's (spawn option node_cwd), into
// `dir` ("" to stay in the helper's). Returns 0 or the errno chdir would give, checked
// here because posix_spawn's own chdir failure looks like any other failure.
int choose_directory(const spawn_request& r, const launch_context& context, std::string& dir);

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
// The path of the terminal whose master is `master` (Linux: ptsname_r; macOS:
// TIOCPTYGNAME): 0, or an errno.
int terminal_path(int master, std::string& out) noexcept;
// A path that runs this helper binary again (Linux: /proc/self/exe), for the terminal
// trampoline (pty_posix_spawn.cpp); "" if there is none.
const std::string& own_executable() noexcept;
}  // namespace posix_spawn_platform

}  // namespace spawnhost
