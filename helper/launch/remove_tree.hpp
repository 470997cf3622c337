// Deleting a file or a directory tree, blocking (run on a launch thread).
#pragma once
#include <string>
#include <system_error>

namespace spawnhost {

struct remove_result {
  std::error_code error;  // empty on success; a path already gone is success
  const char* syscall = "";  // the call that failed: lstat, unlink, rmdir, opendir
};

// Links are removed, never followed.
remove_result remove_tree(const std::string& path) noexcept;

}  // namespace spawnhost
