#include "sync_fifos.hpp"

namespace spawnhost {

// Windows has no FIFOs in the file system; a named pipe would do, but Node's blocking
// calls fall back to child_process there (docs/sync.md), so nothing uses one yet.
std::error_code open_sync_fifos(const std::string&, sync_fifo_ends&) noexcept {
  return std::make_error_code(std::errc::not_supported);
}

void remove_sync_fifos(const std::string&) noexcept {}

}  // namespace spawnhost
