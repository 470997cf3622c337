// What CreateProcessW is given for one launch, shared by every kind of Windows child
// (windows/process.cpp, windows/pty/launch_terminal.cpp): the program found on PATH as
// libuv finds it, the quoted command line, the working directory and the environment
// block. One place, so a terminal's child is found and quoted as any other child.
#pragma once
#include <windows.h>

#include <string>
#include <system_error>

#include "launch/process.hpp"

namespace spawnhost::windows {

struct launch_command {
  std::wstring application;  // the program's full path, as search_path found it
  std::wstring command;      // argv0 and the arguments, quoted (or verbatim)
  std::wstring cwd;          // the request's cwd, else the helper's own
  std::wstring environment;  // a CreateProcessW block; empty: the helper's environment
};

// The refusals every Windows child shares, each with the stage Node reports it at:
// a batch file without a shell ("spawn", EINVAL: CVE-2024-27980), uid/gid ("setuid",
// ENOTSUP), a program not found ("exec", ENOENT). `stage` is a string literal.
std::error_code plan_launch(const spawn_request& r, launch_command& out, const char*& stage);

// A launch that failed at `stage` (a string literal) with `error`. A Win32 error without
// an errno name reaches Node as "spawn UNKNOWN", which says nothing of the cause: its
// number goes to the helper's stderr, which Node shows with SPAWNHOST_DEBUG=1 and in the
// error of a helper that ends. For a terminal's start as for any child's.
launched_process launch_failure(const char* stage, std::error_code error);

// CreateProcessW for `plan` (its command line is CreateProcessW's to edit), made once
// more when it fails with ERROR_INTERNAL_ERROR. Wine 8 gives that error
// (STATUS_INTERNAL_ERROR from NtCreateUserProcess) when the new process ended inside
// wine's own start, before any of its code ran: CI saw it under load, once in a test run
// or two, for plain children and terminals alike. Nothing was created, so the second
// attempt starts nothing twice. Any other failure, or a second one, is the caller's.
BOOL create_process(launch_command& plan, BOOL inherit_handles, DWORD flags, STARTUPINFOW* startup,
                    PROCESS_INFORMATION* info);

}  // namespace spawnhost::windows
