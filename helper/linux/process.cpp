// Linux's side of process.hpp: children's stdio and IPC ends, made here for the clone
// launcher (clone_child.hpp) to pass on; how children are reaped and signalled, through
// their pidfd where the kernel has one; Linux's signal and errno names; and the helper's
// own process, set up once at start. helper/darwin/process.cpp is its macOS twin.
#include <fcntl.h>
#include <linux/close_range.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <string>

#include "linux/clone_child.hpp"
#include "posix/launch_common.hpp"
#include "posix/launch_posix_spawn.hpp"
#include "launch/process.hpp"
#include "launch/signal_table.hpp"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

namespace spawnhost {
namespace {

// One /dev/null for every ignored stdio: dup3 in the child gives it a copy without
// FD_CLOEXEC, so sharing it costs no open and close per launch.
int dev_null() noexcept {
  static const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  return fd;
}

}  // namespace

launched_process launch_process(const spawn_request& r, const launch_context& context) noexcept {
  // SPAWNHOST_HELPER_POSIX_SPAWN=1: the portable launcher, the macOS helper's, tested
  // here. uid/gid stay on this path: posix_spawn cannot set them.
  if (posix_spawn_launcher_chosen() && !r.options.uid && !r.options.gid) return launch_with_posix_spawn(r, context);
  try {
    launched_process out;
    unique_fd child_ends[3];
    for (int fd = 0; fd < 3; ++fd) {
      switch (r.options.stdio[fd]) {
        case protocol::stdio_kind::pipe: {
          // A socketpair, as libuv gives Node's children: what children observe
          // (ECONNRESET/EPIPE, fstat) matches child_process, its buffers are larger
          // than a pipe's 64 KiB (output throughput was a third of Node's with pipes),
          // and it escapes the per-user pipe-page limit that shrinks every pipe past
          // the first ~1,000 of a non-root user to a single page.
          int p[2];
          if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0) return launch_failure("pipe", errno);
          child_ends[fd].reset(p[0]);
          out.stdio[fd].reset(p[1]);
          break;
        }
        case protocol::stdio_kind::ignore:
          if (dev_null() < 0) return launch_failure("open", errno);
          break;
        case protocol::stdio_kind::inherit:
        case protocol::stdio_kind::given: {
          const int copy = copy_of_stdio_source(r, context, fd);
          if (copy < 0) return launch_failure("dup", errno);
          child_ends[fd].reset(copy);
          break;
        }
      }
    }

    unique_fd child_channel;
    if (r.options.ipc && r.options.connected_channel >= 0) {
      // Node's own end is connected to it (ipc_connected): nothing of ours to relay.
      const int copy = fcntl(r.options.connected_channel, F_DUPFD_CLOEXEC, 3);
      if (copy < 0) return launch_failure("dup", errno);
      child_channel.reset(copy);
    } else if (r.options.ipc) {
      int sv[2];
      if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return launch_failure("socketpair", errno);
      out.channel.reset(sv[0]);
      child_channel.reset(sv[1]);
    }

    const exec_inputs inputs(r, context);
    clone_child_args a{};
    inputs.fill(a);
    for (int fd = 0; fd < 3; ++fd) a.stdio[fd] = child_ends[fd] ? child_ends[fd].get() : dev_null();
    a.channel = child_channel ? child_channel.get() : -1;
    a.new_session = r.options.detached;
    a.die_with_helper = !r.options.detached;
    a.process_group = r.options.detached ? 0 : context.process_group;

    launched_process child = clone_and_exec(a, pidfd_supported());
    if (child.error) return child;
    out.pid = child.pid;
    out.exit_handle = std::move(child.exit_handle);
    out.create_us = child.create_us;
    // Its parent-death signal follows this thread: keep the thread until it has exited.
    if (!r.options.detached) out.launch_thread = launch_pool::pin_current_thread();
    return out;
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

std::error_code reap_process(int pid, int exit_handle, exit_status& out) noexcept {
  siginfo_t info{};
  // By PID when there is no pidfd, or waitid cannot take one (Linux < 5.4): the child
  // is ours and unreaped (a pidfd or a zombie pins it), so its PID is not reused.
  const bool by_pidfd = exit_handle >= 0 &&
      waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(exit_handle), &info, WEXITED) == 0;
  if (!by_pidfd) {
    if (exit_handle >= 0 && errno != EINVAL) return {errno, std::generic_category()};
    if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED) < 0) return {errno, std::generic_category()};
  }
  if (info.si_code == CLD_EXITED) out.code = info.si_status;
  else out.signal = info.si_status;
  return {};
}

std::error_code signal_process(int pid, int exit_handle, int signal) noexcept {
  if (exit_handle >= 0 && syscall(SYS_pidfd_send_signal, exit_handle, signal, nullptr, 0) == 0) return {};
  // Without a pidfd, by PID: safe while the child is unreaped, which the caller ensures.
  if ((exit_handle < 0 || errno == ENOSYS) && ::kill(pid, signal) == 0) return {};
  return {errno, std::generic_category()};
}

namespace {
// Node's spelling; where two names share a number the first one is what Node reports.
constexpr std::array<named_signal, 33> signals{{
    {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},       {"SIGQUIT", SIGQUIT},   {"SIGILL", SIGILL},
    {"SIGTRAP", SIGTRAP}, {"SIGABRT", SIGABRT},     {"SIGIOT", SIGIOT},     {"SIGBUS", SIGBUS},
    {"SIGFPE", SIGFPE},   {"SIGKILL", SIGKILL},     {"SIGUSR1", SIGUSR1},   {"SIGSEGV", SIGSEGV},
    {"SIGUSR2", SIGUSR2}, {"SIGPIPE", SIGPIPE},     {"SIGALRM", SIGALRM},   {"SIGTERM", SIGTERM},
    {"SIGCHLD", SIGCHLD}, {"SIGSTKFLT", SIGSTKFLT}, {"SIGCONT", SIGCONT},   {"SIGSTOP", SIGSTOP},
    {"SIGTSTP", SIGTSTP}, {"SIGTTIN", SIGTTIN},     {"SIGTTOU", SIGTTOU},   {"SIGURG", SIGURG},
    {"SIGXCPU", SIGXCPU}, {"SIGXFSZ", SIGXFSZ},     {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF},
    {"SIGWINCH", SIGWINCH}, {"SIGIO", SIGIO},       {"SIGPOLL", SIGPOLL},   {"SIGPWR", SIGPWR},
    {"SIGSYS", SIGSYS},
}};
}  // namespace

std::optional<int> signal_number(std::string_view name) noexcept { return number_in(signals, name); }

std::optional<std::string_view> signal_name(int number) noexcept { return name_in(signals, number); }

const char* errno_name(int error) noexcept {
  const char* name = strerrorname_np(error);
  return name ? name : "UNKNOWN";
}

const char* error_name(const std::error_code& error) noexcept { return errno_name(error.value()); }

std::uint64_t current_process_id() noexcept { return static_cast<std::uint64_t>(getpid()); }

helper_origin prepare_helper_process(bool leave_parent) noexcept {
  helper_origin origin;
  origin.node_pid = getppid();
  const int node_group = getpgrp();
  if (leave_parent) {
    // No threads exist yet, so a plain fork is safe. If it fails we stay a direct
    // child: the worst case is a zombie until Node exits, as before.
    const pid_t pid = fork();
    if (pid > 0) _exit(0);
  }
  // Our own process group: a child signalling its group (kill(0, sig)) or a terminal's
  // Ctrl-C must not take the helper down. Node notices our end through the pipes.
  setpgid(0, 0);
  signal(SIGPIPE, SIG_IGN);  // a vanished reader is an EPIPE, handled where it happens
  // Many children at once need many descriptors: use the whole hard limit.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  // Whatever Node let us inherit beyond stdio must not reach our children.
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  // If Node dies, stdin reaches EOF; this covers a Node that is SIGKILLed while the
  // pipe is held open by someone else. It follows the thread that started us, so a
  // reparented helper, whose parent is gone already, cannot use it.
  if (getppid() == origin.node_pid) prctl(PR_SET_PDEATHSIG, SIGTERM);
  // Frames of up to 4 MiB are allocated and freed at a high rate. glibc's defaults
  // give each large one fresh pages (mmap, or a heap top trimmed on every free), and a
  // page fault per 4 KiB cost more CPU than the copies when 1 GiB went to a child's
  // stdin. Keep such blocks on the heap, and up to 16 MiB of freed heap for reuse.
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
  mallopt(M_TRIM_THRESHOLD, 16 << 20);
  // Our stdout is a socketpair from libuv with ~208 KiB of send buffer: a fast child's
  // frames then leave in many partial writes, each a wake-up on both sides. 1 MiB
  // (the kernel caps it at net.core.wmem_max) halved Node's involuntary context
  // switches while relaying 1 GiB. Not a socket (a pipe, in tests): nothing to do.
  const int send_buffer = 1 << 20;
  setsockopt(1, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
  origin.node_group = node_group == getpgrp() ? 0 : node_group;
  return origin;
}

}  // namespace spawnhost
