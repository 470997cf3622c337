// Linux's hooks for the portable launcher (launch_posix_spawn.hpp).
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "linux/clone_child.hpp"  // pidfd_supported
#include "posix/launch_posix_spawn.hpp"

namespace spawnhost::posix_spawn_platform {

short extra_flags() noexcept { return 0; }

int close_from(posix_spawn_file_actions_t* actions, int first) noexcept {
  // glibc >= 2.34. The helper also marks every inherited descriptor close-on-exec at
  // start and opens its own with O_CLOEXEC: this covers one a library opened without.
  return posix_spawn_file_actions_addclosefrom_np(actions, first);
}

void add_reserved_signals(sigset_t& set) noexcept {
  // glibc's posix_spawn leaves its two internal signals (SIGCANCEL, SIGSETXID: 32, 33)
  // ignored in the child unless they are in the SETSIGDEF set, and ignored signals
  // survive exec: a child would start with SigIgn 0x180000000, where Node's children
  // and the clone launcher's start with none ignored. sigaddset refuses them, so the
  // bits are set directly; glibc's child honours them (sysdeps/unix/sysv/linux/spawni.c).
  // Signals stay blocked in the child until just before exec, so nothing can arrive
  // at the default disposition before the new program installs its own.
  constexpr int bits_per_word = 8 * sizeof set.__val[0];
  for (int signal : {32, 33}) set.__val[(signal - 1) / bits_per_word] |= 1UL << ((signal - 1) % bits_per_word);
}

int cloexec_socketpair(int ends[2]) noexcept { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends); }

std::string process_cwd_path(int pid) { return "/proc/" + std::to_string(pid) + "/cwd"; }

std::error_code open_exit_handle(int pid, os_handle& out) noexcept {
  // As the clone launcher: a pidfd unless the kernel has none, or SPAWNHOST_HELPER_NO_PIDFD=1.
  if (!pidfd_supported()) return {};
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return {errno, std::generic_category()};
  out.reset(fd);
  return {};
}

int terminal_path(int master, std::string& out) noexcept {
  char name[64];
  if (const int e = ptsname_r(master, name, sizeof name)) return e;
  out = name;
  return 0;
}

// The kernel's link to the running binary: it execs even if the file was replaced or
// removed since the helper started.
const std::string& own_executable() noexcept {
  static const std::string path = "/proc/self/exe";
  return path;
}

}  // namespace spawnhost::posix_spawn_platform
