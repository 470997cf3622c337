// What both POSIX launchers (the clone launcher in process.cpp and the posix_spawn one)
// need before they exec: the program's candidate paths, searched as execvp searches
// the child's PATH, and argv/envp as C arrays.
#pragma once

#include <string>
#include <vector>

#include "messages.hpp"

namespace spawnhost {

/** The paths to try in order: `file` itself when it has a slash, else PATH's entries. */
std::vector<std::string> candidate_paths(const spawn_request& r);

/** Pointers into `v`'s strings, null-terminated, for execve/posix_spawn. */
std::vector<char*> c_strings(const std::vector<std::string>& v);

}  // namespace spawnhost
