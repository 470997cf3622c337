// The operating-system side of a child: create, signal, reap. One implementation per
// platform (linux/process.cpp, darwin/process.cpp, windows/process.cpp), chosen by CMake, so the logic
// files above it contain no #ifdefs. os_handle.hpp comes from helper/base/posix or
// helper/base/windows: a descriptor or a HANDLE.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "launch/launch_pool.hpp"
#include "protocol/messages.hpp"
#include "os_handle.hpp"

namespace spawnhost {

struct launched_process {
  std::error_code error;     // set when the process could not be created
  const char* stage = "";    // the step that failed: pipe, chdir, setgid, setuid, exec, pidfd
  int pid = -1;
  os_handle exit_handle;     // signalled when the process exits (a pidfd; on Windows the process handle)
  os_handle stdio[3];        // our ends of piped stdio (stdin: write end), else invalid
  os_handle channel;         // our end of the IPC socketpair, when asked for
  os_handle terminal;        // a terminal child's master, kept for resize (pty/terminal.hpp)
  std::uint64_t create_us = 0;  // time inside the OS call that created the process
  // Set where the child's life is tied to the launch thread that created it (Linux's
  // parent-death signal): that thread does not retire until the child has exited.
  launch_pool::pin launch_thread;
};

// What every launch of one helper shares.
struct launch_context {
  int inherited[3] = {-1, -1, -1};  // the helper's descriptors for stdio "inherit"
  int process_group = 0;            // where non-detached children go (0: stay in ours)
  int node_pid = 0;                 // Node's process, for spawn option node_cwd (0: unknown)
  // The helper binary, for the terminal trampoline (pty/terminal.hpp); null: the one
  // running. Tests that link the helper's code into another binary set it.
  const char* helper_binary = nullptr;
  std::string stream_pipe;          // Windows: Node's pipe for handed-over stdio (--stream-pipe; windows/node_pipes.hpp)
};

// Creates the process described by `request`. Blocking: call it on a launch thread.
// All descriptors it opens are close-on-exec; the child gets only its stdio.
launched_process launch_process(const spawn_request& request, const launch_context& context) noexcept;

struct exit_status {
  std::optional<std::int64_t> code;  // set when the process exited normally
  int signal = 0;                    // set when a signal ended it
};

// Collects the exit status of a process whose exit handle is readable.
std::error_code reap_process(int pid, native_handle exit_handle, exit_status& out) noexcept;

// Sends `signal` to the process (through its pidfd: no race with PID reuse).
std::error_code signal_process(int pid, native_handle exit_handle, int signal) noexcept;

// SIGKILL's number, which Node uses on every platform (9), for the end of a grace period.
inline constexpr int sigkill_number = 9;

// What one non-blocking read of a child's pipe got: bytes, or nothing yet, or (both
// zero) the end of the stream.
struct read_outcome {
  std::size_t bytes = 0;
  bool would_block = false;
};

// What one write that never blocks did: `bytes` went out; the rest would have blocked
// (or this descriptor cannot be written without waiting), unless `error` says it failed.
struct write_outcome {
  std::size_t bytes = 0;
  std::error_code error;
};

// Signal names as Node spells them ("SIGTERM"); nullopt when unknown here.
std::optional<int> signal_number(std::string_view name) noexcept;
std::optional<std::string_view> signal_name(int signal) noexcept;

// "ENOENT" for ENOENT; "UNKNOWN" when the platform has no name for it.
const char* errno_name(int error) noexcept;
// The same for any error the platform reports (on Windows also Win32 error codes,
// named as libuv maps them).
const char* error_name(const std::error_code& error) noexcept;

std::uint64_t current_process_id() noexcept;

// Where the helper came from, learned before it changes anything.
struct helper_origin {
  int node_group = 0;  // the process group it left (Node's), for the children; 0: none
  int node_pid = 0;    // the Node process that started it
};

// One-time process setup of the helper itself: own process group, SIGPIPE ignored,
// descriptor limit raised, inherited descriptors marked close-on-exec, parent-death
// signal. With `leave_parent` (POSIX; a helper started by a worker thread) it first
// forks and lets the parent exit, so that nothing waits on a thread that may end
// before us: the process that started us is reaped at once, and we are reparented
// (no parent-death signal then: stdin's EOF tells us Node or its worker is gone).
helper_origin prepare_helper_process(bool leave_parent) noexcept;

}  // namespace spawnhost
