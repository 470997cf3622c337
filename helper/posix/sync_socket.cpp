#include "sync/sync_socket.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace spawnhost {
namespace {

// A full socket stops the child output we relay until Node reads; Node reads 64 KiB at
// a time, and a larger buffer lets a fast child run ahead of that (best effort: the
// system caps it at net.core.wmem_max).
constexpr int reply_buffer_bytes = 1 << 20;

}  // namespace

std::error_code open_sync_socket(int fd, sync_socket_ends& out) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return {errno, std::generic_category()};
  if (!S_ISSOCK(st.st_mode)) return std::make_error_code(std::errc::not_a_socket);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
    return {errno, std::generic_category()};
  }
  const int reply = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (reply < 0) return {errno, std::generic_category()};
  ::setsockopt(reply, SOL_SOCKET, SO_SNDBUF, &reply_buffer_bytes, sizeof reply_buffer_bytes);
  out.request = fd;
  out.reply = reply;
  return {};
}

// The POSIX sync channel is the socket above: no names (docs/sync.md).
std::error_code open_sync_pipe(const char*, sync_socket_ends&) noexcept {
  return std::make_error_code(std::errc::not_supported);
}

}  // namespace spawnhost
