// POSIX: an owned OS handle is a file descriptor. process.hpp uses these names so the
// same declarations serve the Windows twin (helper/base/windows/os_handle.hpp).
#pragma once
#include "base/unique_fd.hpp"

namespace spawnhost {

using native_handle = int;
using os_handle = unique_fd;

}  // namespace spawnhost
