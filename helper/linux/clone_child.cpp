// The clone child and its parent's side (clone_child.hpp).
#include "linux/clone_child.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "posix/launch_common.hpp"

extern char** environ;
// glibc's own name for clone(). Sanitizer runtimes intercept `clone` and treat the
// child like a fork, resetting their state, which the CLONE_VM child shares with us;
// calling __clone keeps them out of it (TSan then models launches correctly).
extern "C" int __clone(int (*fn)(void*), void* stack, int flags, void* arg, ...);

namespace spawnhost {
namespace {

constexpr std::size_t child_stack_size = 64 * 1024;
constexpr int channel_fd = 3;  // Node's children find their IPC channel at NODE_CHANNEL_FD=3

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

[[noreturn]] SPAWNHOST_CHILD_CODE void child_fail(clone_child_args* a, const char* stage) {
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
  auto* a = static_cast<clone_child_args*>(raw);
  a->ran = true;
  // Dispositions: the parent blocked every signal before cloning, so no handler can
  // run on this shared memory. Reset all to default (SIGPIPE is ignored in the helper,
  // and ignored signals survive exec), then unblock, as Node does for its children.
  kernel_sigaction dfl{};  // handler SIG_DFL (0), empty mask
  for (std::size_t i = 0; i < a->reset_signal_count; ++i) {
    sys(SYS_rt_sigaction, a->reset_signals[i], reinterpret_cast<long>(&dfl), 0, 8);
  }
  if (a->new_session) {
    if (sys(SYS_setsid) < 0) child_fail(a, "setsid");
    // A terminal child's session gets the new terminal as its controlling tty: the
    // terminal's ^C, ^Z and SIGWINCH reach its foreground group, and nothing of Node's.
    if (a->controlling_terminal >= 0 && sys(SYS_ioctl, a->controlling_terminal, TIOCSCTTY, 0) < 0) {
      child_fail(a, "ioctl");
    }
  }
  if (a->die_with_helper) {
    // Die with the helper if it dies without ending us (crash, SIGKILL, OOM). The
    // signal follows the *thread* that created us: launch threads live as long as the
    // helper, which is why launches never run on short-lived threads.
    if (sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL) < 0) child_fail(a, "prctl");
    if (sys(SYS_getppid) != a->helper_pid) sys(SYS_exit_group, 127);  // the helper is already gone
  }
  // Back into Node's process group, where child_process puts children: a terminal's
  // Ctrl-C reaches them as before, and a child signalling its group (kill(0, sig))
  // cannot reach the helper, which has a group of its own. If that group is gone,
  // the child stays in the helper's.
  if (a->process_group > 0) sys(SYS_setpgid, 0, a->process_group);
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
// launch, which shows it by `clone_child_args::ran`.
std::atomic<int> vfork_shares_memory{-1};

// The helper's own PID, for the child's check that its parent is still the helper.
pid_t helper_pid() noexcept {
  static const pid_t pid = getpid();
  return pid;
}

// Under CLONE_VFORK the parent resumes once the child has exec'd or exited; the report
// pipe, where there is one, also covers an emulator's fork, which returns at once.
void read_failure_report(int report_read, clone_child_args& a) {
  failure_report report{};
  ssize_t n;
  do n = read(report_read, &report, sizeof report);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof report)) {
    a.error = report.error;
    a.stage = report.stage;
  }
}

launched_process end_unwatchable(pid_t pid, const char* stage, int error) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return launch_failure(stage, error);
}

}  // namespace

exec_inputs::exec_inputs(const spawn_request& r, const launch_context& context)
    : options_(r.options), candidates_(candidate_paths(r)) {
  argv_strings_.reserve(r.args.size() + 1);
  argv_strings_.push_back(options_.argv0 ? *options_.argv0 : r.file);
  argv_strings_.insert(argv_strings_.end(), r.args.begin(), r.args.end());
  argv_ = c_strings(argv_strings_);
  if (options_.env) envp_ = c_strings(*options_.env);
  for (const auto& c : candidates_) candidate_ptrs_.push_back(c.c_str());
  // Node's current directory, deleted or not, as a child of Node would inherit it:
  // Node names it by a path that may be gone (or could not name it at all).
  if (options_.node_cwd && context.node_pid > 0) node_cwd_ = "/proc/" + std::to_string(context.node_pid) + "/cwd";
}

void exec_inputs::fill(clone_child_args& a) const {
  a.reset_signals = non_default_signals().data();
  a.reset_signal_count = non_default_signals().size();
  a.argv = argv_.data();
  a.envp = options_.env ? envp_.data() : environ;
  a.candidates = candidate_ptrs_.data();
  a.candidate_count = candidate_ptrs_.size();
  a.cwd = options_.cwd ? options_.cwd->c_str() : nullptr;
  a.cwd_fallback = node_cwd_.empty() ? nullptr : node_cwd_.c_str();
  if (!a.cwd) std::swap(a.cwd, a.cwd_fallback);
  a.helper_pid = helper_pid();
  a.uid = options_.uid ? static_cast<long>(*options_.uid) : -1;
  a.gid = options_.gid ? static_cast<long>(*options_.gid) : -1;
}

bool pidfd_supported() noexcept {
  static const bool supported = [] {
    if (const char* off = std::getenv("SPAWNHOST_HELPER_NO_PIDFD"); off && std::string_view(off) == "1") return false;
    const int probe = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
    if (probe < 0) return false;
    close(probe);
    return true;
  }();
  return supported;
}

launched_process clone_and_exec(clone_child_args& a, bool want_pidfd) {
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
  const int clone_error = errno;
  unique_fd exit_handle(pid >= 0 ? pidfd : -1);
  if (pid >= 0 && vfork_shares_memory.load(std::memory_order_relaxed) < 0) {
    vfork_shares_memory.store(a.ran ? 1 : 0, std::memory_order_relaxed);
  }
  report_write.reset();
  // After a real vfork the child has exec'd (EOF at once) or written a.error; under
  // fork emulation this waits for the exec or the report.
  if (pid >= 0 && !a.error && report_read) read_failure_report(report_read.get(), a);
  launched_process out;
  out.create_us = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  if (pid < 0) return launch_failure("clone", clone_error);
  if (a.error) {
    waitpid(pid, nullptr, 0);  // it exited with 127 before exec: collect it now
    return launch_failure(a.stage, a.error);
  }
  out.pid = pid;
  if (!want_pidfd) return out;  // no exit handle: exit_watch waits on SIGCHLD
  if (!exit_handle) exit_handle.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  if (!exit_handle) return end_unwatchable(pid, "pidfd", errno);
  out.exit_handle.reset(exit_handle.release());
  return out;
}

}  // namespace spawnhost
