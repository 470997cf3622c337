// macOS's hooks for the portable launcher (launch_posix_spawn.hpp).
// UNVERIFIED: compiled for aarch64-macos and x86_64-macos by zig on Linux, never run on
// macOS (docs/macos.md). The launcher itself is the one tested on Linux.
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <spawn.h>
#include <sys/event.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

#include "posix/launch_posix_spawn.hpp"

namespace spawnhost::posix_spawn_platform {

// Children inherit nothing but what the file actions place (stdio, IPC): descriptors
// another thread opens during a launch, without O_CLOEXEC, cannot leak into it.
short extra_flags() noexcept { return POSIX_SPAWN_CLOEXEC_DEFAULT; }

int close_from(posix_spawn_file_actions_t*, int) noexcept { return 0; }  // CLOEXEC_DEFAULT does it

void add_reserved_signals(sigset_t&) noexcept {}  // libSystem reserves none

int cloexec_socketpair(int ends[2]) noexcept {
  // macOS has no SOCK_CLOEXEC. The gap before fcntl is harmless here: every launch
  // uses POSIX_SPAWN_CLOEXEC_DEFAULT, so no child inherits these by accident.
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) < 0) return -1;
  for (int i = 0; i < 2; ++i) fcntl(ends[i], F_SETFD, FD_CLOEXEC);
  return 0;
}

std::string process_cwd_path(int pid) {
  // No /proc: ask the kernel for the path of Node's current directory. A directory
  // that was deleted has no path any more; then the child starts in the helper's.
  proc_vnodepathinfo info{};
  if (proc_pidinfo(pid, PROC_PIDVNODEPATHINFO, 0, &info, sizeof info) != static_cast<int>(sizeof info)) return {};
  return info.pvi_cdir.vip_path;
}

// A kqueue that becomes readable when `pid` exits (EVFILT_PROC, NOTE_EXIT): the exit
// watch waits on it as on Linux's pidfd, with the helper's own kqueue-based Asio loop.
std::error_code open_exit_handle(int pid, os_handle& out) noexcept {
  const int kq = kqueue();
  if (kq < 0) return {errno, std::generic_category()};
  os_handle queue(kq);
  fcntl(kq, F_SETFD, FD_CLOEXEC);
  struct kevent change;
  EV_SET(&change, pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, nullptr);
  if (kevent(kq, &change, 1, nullptr, 0, nullptr) < 0) {
    if (errno != ESRCH) return {errno, std::generic_category()};
    // Exited already (a zombie cannot be watched): make the queue readable at once,
    // and the exit watch reaps it.
    EV_SET(&change, 1, EVFILT_USER, EV_ADD | EV_ONESHOT, NOTE_TRIGGER, 0, nullptr);
    if (kevent(kq, &change, 1, nullptr, 0, nullptr) < 0) return {errno, std::generic_category()};
  }
  out = std::move(queue);
  return {};
}

// TIOCPTYGNAME: the name into a buffer of ours, where ptsname's is shared by threads.
int terminal_path(int master, std::string& out) noexcept {
  char name[128] = {};
  if (ioctl(master, TIOCPTYGNAME, name) < 0) return errno;
  out = name;
  return 0;
}

const std::string& own_executable() noexcept {
  static const std::string path = [] {
    char buffer[PATH_MAX];
    std::uint32_t size = sizeof buffer;
    return _NSGetExecutablePath(buffer, &size) == 0 ? std::string(buffer) : std::string();
  }();
  return path;
}

}  // namespace spawnhost::posix_spawn_platform
