// What both POSIX launchers (the clone launcher in process.cpp and the posix_spawn one)
// share: the program's candidate paths, searched as execvp searches the child's PATH,
// argv/envp as C arrays, and the result of a launch that failed.
#pragma once

#include <string>
#include <vector>

#include "protocol/messages.hpp"
#include "launch/process.hpp"

namespace spawnhost {

/** The paths to try in order: `file` itself when it has a slash, else PATH's entries. */
std::vector<std::string> candidate_paths(const spawn_request& r);

/** Pointers into `v`'s strings, null-terminated, for execve/posix_spawn. */
std::vector<char*> c_strings(const std::vector<std::string>& v);

/**
 * The signals whose disposition is not the default: ignored ones would survive exec,
 * and handled ones must not run in a clone child between unblocking and exec. Read
 * once (the helper sets its dispositions before its first launch).
 */
const std::vector<int>& non_default_signals();

/** A launch that failed at `stage` ("pipe", "exec", ...) with errno `error`. */
launched_process launch_failure(const char* stage, int error);

/**
 * For stdio "inherit" or given: a close-on-exec copy, above 2, of the descriptor the
 * child's fd `fd` comes from (the helper's inherited one, or the one Node gave for this
 * launch), made blocking as libuv's child makes its fds 0-2: the open file description
 * is shared, so this is the same change libuv's makes (Node's own end turns blocking
 * too), and a child reading a socket Node had set non-blocking would get EAGAIN
 * otherwise. -1 with errno when the copy fails.
 */
int copy_of_stdio_source(const spawn_request& r, const launch_context& context, int fd) noexcept;

}  // namespace spawnhost
