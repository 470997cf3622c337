// A completion condition for asio::async_write that does not split the buffers.
#pragma once
#include <cstddef>
#include <system_error>

namespace spawnhost {

// asio's default (transfer_all) hands at most 64 KiB to each write system call, so a
// 256 KiB frame took four writes, each one waking the reader. With this, one writev
// takes as much of the buffers as the pipe or socket accepts.
inline std::size_t write_whole(const std::error_code& ec, std::size_t) noexcept {
  return ec ? 0 : std::size_t{64} << 20;
}

}  // namespace spawnhost
