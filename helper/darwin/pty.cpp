// Terminal children are not built for macOS yet (docs/pty.md): the launch fails with
// ENOTSUP, which Node reports as the spawn's error.
#include <cerrno>

#include "launch_common.hpp"
#include "pty/terminal.hpp"

namespace spawnhost {

launched_process launch_terminal(const spawn_request&, const launch_context&) noexcept { return launch_failure("pty", ENOTSUP); }

std::error_code resize_terminal(native_handle, std::uint16_t, std::uint16_t) noexcept {
  return {ENOTSUP, std::generic_category()};
}

}  // namespace spawnhost
