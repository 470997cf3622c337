#include "sync_fifos.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace spawnhost {
namespace {

// A full FIFO stops the child output we relay until Node reads; Node reads 64 KiB at a
// time, and a larger buffer lets a fast child run ahead of that (best effort: the
// system may refuse past /proc/sys/fs/pipe-max-size).
constexpr int reply_buffer_bytes = 1 << 20;

int make_and_open(const std::string& path) noexcept {
  if (::mkfifo(path.c_str(), 0600) != 0) return -1;
  return ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

}  // namespace

std::error_code open_sync_fifos(const std::string& dir, sync_fifo_ends& out) noexcept {
  // Node sees the FIFOs appear in this order and opens them once `reply` exists.
  out.request = make_and_open(dir + "/request");
  if (out.request >= 0) out.reply = make_and_open(dir + "/reply");
  if (out.request < 0 || out.reply < 0) {
    const std::error_code error(errno, std::generic_category());
    if (out.request >= 0) ::close(out.request);
    out = {};
    remove_sync_fifos(dir);
    return error;
  }
#ifdef F_SETPIPE_SZ
  ::fcntl(out.reply, F_SETPIPE_SZ, reply_buffer_bytes);
#endif
  return {};
}

void remove_sync_fifos(const std::string& dir) noexcept {
  ::unlink((dir + "/request").c_str());
  ::unlink((dir + "/reply").c_str());
  ::rmdir(dir.c_str());
}

}  // namespace spawnhost
