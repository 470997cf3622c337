#include "sync_socket.hpp"

namespace spawnhost {

// Node's blocking calls fall back to child_process on Windows (docs/sync.md), so the
// helper takes no sync socket there.
std::error_code open_sync_socket(int, sync_socket_ends&) noexcept {
  return std::make_error_code(std::errc::not_supported);
}

}  // namespace spawnhost
