// Linux process creation with clone(CLONE_VM | CLONE_VFORK): the child borrows the
// helper's memory until it execs, so creation costs the same whatever the helper's
// size, and it can do what posix_spawn cannot (PR_SET_PDEATHSIG, setuid/setgid).
//
// The child runs on its own small stack and must only make async-signal-safe system
// calls: it shares memory with a running multi-threaded process. Everything it needs
// (argv, envp, candidate paths) is prepared here, before the clone. It reports a failure
// by writing errno into `child_args` (shared memory), then exiting with 127; because of
// CLONE_VFORK the parent reads it only after the child has exec'd or exited. Emulators
// that run vfork as fork (qemu-user) share no memory: the first launch finds out, and
// where it is so, every launch also gets libuv's close-on-exec pipe for the report.
#include <fcntl.h>
#include <linux/close_range.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <memory>
#include <vector>

#include "launch_common.hpp"
#include "launch_posix_spawn.hpp"
#include "process.hpp"
#include "signal_table.hpp"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

extern char** environ;
// glibc's own name for clone(). Sanitizer runtimes intercept `clone` and treat the
// child like a fork, resetting their state, which the CLONE_VM child shares with us;
// calling __clone keeps them out of it (TSan then models launches correctly).
extern "C" int __clone(int (*fn)(void*), void* stack, int flags, void* arg, ...);

namespace spawnhost {
namespace {

constexpr std::size_t child_stack_size = 64 * 1024;
constexpr int channel_fd = 3;

struct child_args {
  const int* reset_signals;  // dispositions the child must set back to default
  std::size_t reset_signal_count;
  char* const* argv;
  char* const* envp;
  const char* const* candidates;  // paths to try with execve, PATH order
  std::size_t candidate_count;
  const char* cwd;
  const char* cwd_fallback;  // tried when cwd no longer exists (spawn option node_cwd)
  int stdio[3];
  int channel;  // -1, or the descriptor to become the child's fd 3
  bool detached;
  int process_group;  // for a non-detached child: Node's group, not the helper's
  pid_t helper_pid;
  long uid, gid;  // -1: leave as is
  // Written by the child:
  bool ran;  // first thing: the parent sees it only if the clone really shared memory
  int error;
  const char* stage;
  int report_fd;  // -1, or the write end of a close-on-exec pipe: EOF means exec succeeded
};

// What a failed child reports through report_fd.
struct failure_report {
  int error;
  const char* stage;  // a string literal: the same address in a forked copy
};

// The child makes raw system calls only. libc wrappers may be intercepted (sanitizers
// keep their own signal and descriptor tables, shared with the parent under CLONE_VM)
// or do process-wide work (glibc's setuid signals every thread of the *parent*).
// Nothing here is instrumented, for the same reason.
#define SPAWNHOST_CHILD_CODE __attribute__((no_sanitize("address", "thread", "undefined"), noinline))

struct kernel_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  std::uint64_t mask;
};

SPAWNHOST_CHILD_CODE long sys(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
  return syscall(number, a, b, c, d);
}

[[noreturn]] SPAWNHOST_CHILD_CODE void child_fail(child_args* a, const char* stage) {
  a->error = errno;
  a->stage = stage;
  // Also through the pipe, libuv's way, where clone(CLONE_VM|CLONE_VFORK) degrades to
  // a fork: the parent never sees the memory written above.
  if (a->report_fd >= 0) {
    const failure_report report{a->error, stage};
    sys(SYS_write, a->report_fd, reinterpret_cast<long>(&report), sizeof report);
  }
  sys(SYS_exit_group, 127);
  __builtin_unreachable();
}

SPAWNHOST_CHILD_CODE int child_main(void* raw) {
  auto* a = static_cast<child_args*>(raw);
  a->ran = true;
  // Dispositions: the parent blocked every signal before cloning, so no handler can
  // run on this shared memory. Reset all to default (SIGPIPE is ignored in the helper,
  // and ignored signals survive exec), then unblock, as Node does for its children.
  kernel_sigaction dfl{};  // handler SIG_DFL (0), empty mask
  for (std::size_t i = 0; i < a->reset_signal_count; ++i) {
    sys(SYS_rt_sigaction, a->reset_signals[i], reinterpret_cast<long>(&dfl), 0, 8);
  }
  if (a->detached) {
    if (sys(SYS_setsid) < 0) child_fail(a, "setsid");
  } else {
    // Die with the helper if it dies without ending us (crash, SIGKILL, OOM). The
    // signal follows the *thread* that created us: launch threads live as long as the
    // helper, which is why launches never run on short-lived threads.
    if (sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL) < 0) child_fail(a, "prctl");
    if (sys(SYS_getppid) != a->helper_pid) sys(SYS_exit_group, 127);  // the helper is already gone
    // Back into Node's process group, where child_process puts children: a terminal's
    // Ctrl-C reaches them as before, and a child signalling its group (kill(0, sig))
    // cannot reach the helper, which has a group of its own. If that group is gone,
    // the child stays in the helper's.
    if (a->process_group > 0) sys(SYS_setpgid, 0, a->process_group);
  }
  if (a->cwd && sys(SYS_chdir, reinterpret_cast<long>(a->cwd)) < 0) {
    const int error = errno;
    if (!(error == ENOENT && a->cwd_fallback && sys(SYS_chdir, reinterpret_cast<long>(a->cwd_fallback)) == 0)) {
      errno = error;
      child_fail(a, "chdir");
    }
  }
  for (long fd = 0; fd < 3; ++fd) {
    if (sys(SYS_dup3, a->stdio[fd], fd, 0) < 0) child_fail(a, "dup2");
  }
  // Belt and braces: whatever descriptor someone opened without O_CLOEXEC (a library,
  // a test harness) ends at exec; the helper also marks inherited ones at start.
  sys(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (a->channel >= 0) {
    // Node's children find their IPC channel at NODE_CHANNEL_FD=3.
    const long ok = a->channel == channel_fd ? sys(SYS_fcntl, channel_fd, F_SETFD, 0) : sys(SYS_dup3, a->channel, channel_fd, 0);
    if (ok < 0) child_fail(a, "dup2");
  }
  if (a->gid >= 0 || a->uid >= 0) sys(SYS_setgroups, 0, 0);  // errors show up in setgid/setuid
  if (a->gid >= 0 && sys(SYS_setgid, a->gid) < 0) child_fail(a, "setgid");
  if (a->uid >= 0 && sys(SYS_setuid, a->uid) < 0) child_fail(a, "setuid");
  const std::uint64_t none = 0;
  sys(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, 8);
  // execvp's rules: skip directories where the file is missing, remember EACCES.
  int saved = ENOENT;
  for (std::size_t i = 0; i < a->candidate_count; ++i) {
    sys(SYS_execve, reinterpret_cast<long>(a->candidates[i]), reinterpret_cast<long>(a->argv),
        reinterpret_cast<long>(a->envp));
    if (errno == EACCES) saved = EACCES;
    else if (errno != ENOENT && errno != ENOTDIR) { saved = errno; break; }
  }
  errno = saved;
  child_fail(a, "exec");
}


std::uint64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
}

// Blocks every signal on this thread for the clone, restores the old mask after.
class all_signals_blocked {
 public:
  all_signals_blocked() {
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old_);
  }
  ~all_signals_blocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

// Whether clone(CLONE_VM|CLONE_VFORK) shares memory here: unknown (-1) until the first
// launch, which shows it by `child_args::ran`.
std::atomic<int> vfork_shares_memory{-1};

// The helper's own PID, for the child's check that its parent is still the helper.
pid_t helper_pid() noexcept {
  static const pid_t pid = getpid();
  return pid;
}

// One /dev/null for every ignored stdio: dup3 in the child gives it a copy without
// FD_CLOEXEC, so sharing it costs no open and close per launch.
int dev_null() noexcept {
  static const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  return fd;
}

bool pidfd_supported() noexcept {
  // Probed once. SPAWNHOST_HELPER_NO_PIDFD=1 forces the SIGCHLD path, to test on
  // kernels that have pidfd what runs on those that do not.
  static const bool supported = [] {
    if (const char* off = std::getenv("SPAWNHOST_HELPER_NO_PIDFD"); off && std::string_view(off) == "1") return false;
    const int probe = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
    if (probe < 0) return false;
    close(probe);
    return true;
  }();
  return supported;
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

    std::vector<std::string> argv_strings;
    argv_strings.reserve(r.args.size() + 1);
    argv_strings.push_back(r.options.argv0 ? *r.options.argv0 : r.file);
    argv_strings.insert(argv_strings.end(), r.args.begin(), r.args.end());
    const std::vector<char*> argv = c_strings(argv_strings);
    const std::vector<char*> envp = r.options.env ? c_strings(*r.options.env) : std::vector<char*>{};
    const std::vector<std::string> candidates = candidate_paths(r);

    std::vector<const char*> candidate_ptrs;
    for (const auto& c : candidates) candidate_ptrs.push_back(c.c_str());
    child_args a{};
    a.reset_signals = non_default_signals().data();
    a.reset_signal_count = non_default_signals().size();
    a.argv = argv.data();
    a.envp = r.options.env ? envp.data() : environ;
    a.candidates = candidate_ptrs.data();
    a.candidate_count = candidate_ptrs.size();
    a.cwd = r.options.cwd ? r.options.cwd->c_str() : nullptr;
    // Node's current directory, deleted or not, as a child of Node would inherit it:
    // Node names it by a path that may be gone (or could not name it at all).
    const std::string node_cwd = r.options.node_cwd && context.node_pid > 0
                                     ? "/proc/" + std::to_string(context.node_pid) + "/cwd"
                                     : std::string();
    a.cwd_fallback = node_cwd.empty() ? nullptr : node_cwd.c_str();
    if (!a.cwd) std::swap(a.cwd, a.cwd_fallback);
    for (int fd = 0; fd < 3; ++fd) a.stdio[fd] = child_ends[fd] ? child_ends[fd].get() : dev_null();
    a.channel = child_channel ? child_channel.get() : -1;
    a.detached = r.options.detached;
    a.process_group = context.process_group;
    a.helper_pid = helper_pid();
    a.uid = r.options.uid ? static_cast<long>(*r.options.uid) : -1;
    a.gid = r.options.gid ? static_cast<long>(*r.options.gid) : -1;

    // One stack per launch thread, reused: the child is done with it when clone returns.
    thread_local std::unique_ptr<char[]> stack(new char[child_stack_size]);
    unique_fd report_read, report_write;
    if (vfork_shares_memory.load(std::memory_order_relaxed) != 1) {
      int report[2];
      if (pipe2(report, O_CLOEXEC) < 0) return launch_failure("pipe", errno);
      report_read.reset(report[0]);
      report_write.reset(report[1]);
    }
    a.report_fd = report_write ? report_write.get() : -1;
    // The pidfd comes with the clone (CLONE_PIDFD, Linux 5.2) instead of a pidfd_open
    // after it; a kernel or emulator that refuses the flag is asked once more without.
    static std::atomic<bool> clone_pidfd{true};
    const bool want_pidfd = pidfd_supported();
    int pidfd = -1;
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    {
      all_signals_blocked blocked;
      const int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
      if (want_pidfd && clone_pidfd.load(std::memory_order_relaxed)) {
        pid = __clone(child_main, stack.get() + child_stack_size, flags | CLONE_PIDFD, &a, &pidfd);
        if (pid < 0 && errno == EINVAL) {
          clone_pidfd.store(false, std::memory_order_relaxed);
          pid = __clone(child_main, stack.get() + child_stack_size, flags, &a);
        }
      } else {
        pid = __clone(child_main, stack.get() + child_stack_size, flags, &a);
      }
    }
    unique_fd exit_handle(pid >= 0 ? pidfd : -1);
    if (pid >= 0 && vfork_shares_memory.load(std::memory_order_relaxed) < 0) {
      vfork_shares_memory.store(a.ran ? 1 : 0, std::memory_order_relaxed);
    }
    report_write.reset();
    if (pid >= 0 && !a.error && report_read) {
      // After a real vfork the child has exec'd (EOF at once) or written a.error; under
      // fork emulation this waits for the exec or the report.
      failure_report r{};
      ssize_t n;
      do n = read(report_read.get(), &r, sizeof r);
      while (n < 0 && errno == EINTR);
      if (n == static_cast<ssize_t>(sizeof r)) {
        a.error = r.error;
        a.stage = r.stage;
      }
    }
    out.create_us = micros_since(t0);
    if (pid < 0) return launch_failure("clone", errno);
    if (a.error) {
      waitpid(pid, nullptr, 0);  // it exited with 127 before exec: collect it now
      return launch_failure(a.stage, a.error);
    }
    out.pid = pid;
    // Its parent-death signal follows this thread: keep the thread until it has exited.
    if (!r.options.detached) out.launch_thread = launch_pool::pin_current_thread();
    if (!want_pidfd) return out;  // no exit handle: exit_watch waits on SIGCHLD
    if (!exit_handle) exit_handle.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (!exit_handle) {
      const int e = errno;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return launch_failure("pidfd", e);
    }
    out.exit_handle.reset(exit_handle.release());
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
