// Terminal children are not built for Windows yet (ConPTY, docs/pty.md): the launch
// fails with ENOTSUP. Node's spawnhost/pty refuses Windows before it gets here.
#include "pty/terminal.hpp"

namespace spawnhost {

launched_process launch_terminal(const spawn_request&, const launch_context&) noexcept {
  launched_process out;
  out.error = std::make_error_code(std::errc::not_supported);
  out.stage = "pty";
  return out;
}

std::error_code resize_terminal(native_handle, std::uint16_t, std::uint16_t) noexcept {
  return std::make_error_code(std::errc::not_supported);
}

}  // namespace spawnhost
