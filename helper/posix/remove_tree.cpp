#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "launch/remove_tree.hpp"

namespace spawnhost {
namespace {

// nftw keeps no user pointer, so the failure travels through a thread-local: each
// launch thread removes one tree at a time.
thread_local remove_result failure;

int remove_entry(const char* path, const struct stat*, int type, struct FTW*) {
  const bool is_dir = type == FTW_DP;
  if ((is_dir ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT) return 0;
  failure = {std::error_code(errno, std::generic_category()), is_dir ? "rmdir" : "unlink"};
  return 1;
}

}  // namespace

remove_result remove_tree(const std::string& path) noexcept {
  struct stat st {};
  if (lstat(path.c_str(), &st) < 0) {
    if (errno == ENOENT) return {};
    return {std::error_code(errno, std::generic_category()), "lstat"};
  }
  if (!S_ISDIR(st.st_mode)) {
    if (unlink(path.c_str()) == 0 || errno == ENOENT) return {};
    return {std::error_code(errno, std::generic_category()), "unlink"};
  }
  failure = {};
  // FTW_DEPTH: children before their directory; FTW_PHYS: never follow links.
  const int rc = nftw(path.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS);
  if (rc == 0) return {};
  if (failure.error) return failure;
  if (errno == ENOENT) return {};
  return {std::error_code(errno, std::generic_category()), "opendir"};
}

}  // namespace spawnhost
