// macOS terminal children (pty/terminal.hpp): the posix_spawn terminal launcher, the one
// the Linux helper runs with SPAWNHOST_HELPER_POSIX_SPAWN=1 (posix/pty_posix_spawn.cpp);
// resize_terminal is the POSIX one (posix/pty_common.cpp).
// UNVERIFIED: compiled for aarch64-macos and x86_64-macos by zig on Linux, never run on
// macOS (docs/pty.md says what that leaves open).
#include "posix/launch_posix_spawn.hpp"
#include "pty/terminal.hpp"

namespace spawnhost {

launched_process launch_terminal(const spawn_request& r, const launch_context& context) noexcept {
  return launch_terminal_with_posix_spawn(r, context);
}

}  // namespace spawnhost
