// Linux terminal children (pty/terminal.hpp). The master is /dev/ptmx, opened here or
// by Node (stdio[0] kind given: Node then reads and writes it itself); the slave comes
// from the master (TIOCGPTPEER: no path lookup to race), gets node-pty's termios and
// the window size, and becomes the child's fds 0-2 and controlling terminal.
//
// The child is created as process.cpp creates every child, with
// clone(CLONE_VM | CLONE_VFORK), and under the same rules (raw system calls only; all
// signals blocked around the clone, dispositions reset in the child; parent-death
// signal, so that no terminal child outlives the helper), plus setsid and TIOCSCTTY.
// Its failure is reported through a close-on-exec pipe, which also holds where an
// emulator runs vfork as a fork: a terminal launch is rare enough not to need
// process.cpp's shared-memory shortcut.
#include <fcntl.h>
#include <linux/close_range.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "launch_common.hpp"
#include "launch_pool.hpp"
#include "pty/terminal.hpp"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

extern char** environ;
extern "C" int __clone(int (*fn)(void*), void* stack, int flags, void* arg, ...);

namespace spawnhost {
namespace {

constexpr std::size_t child_stack_size = 64 * 1024;

struct terminal_child_args {
  const int* reset_signals;
  std::size_t reset_signal_count;
  char* const* argv;
  char* const* envp;
  const char* const* candidates;
  std::size_t candidate_count;
  const char* cwd;
  const char* cwd_fallback;
  int slave;
  pid_t helper_pid;
  long uid, gid;
  int report_fd;  // write end of a close-on-exec pipe: EOF means exec succeeded
};

struct failure_report {
  int error;
  const char* stage;  // a string literal: the same address in a forked copy
};

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

[[noreturn]] SPAWNHOST_CHILD_CODE void child_fail(terminal_child_args* a, const char* stage) {
  const failure_report report{errno, stage};
  sys(SYS_write, a->report_fd, reinterpret_cast<long>(&report), sizeof report);
  sys(SYS_exit_group, 127);
  __builtin_unreachable();
}

SPAWNHOST_CHILD_CODE int terminal_child_main(void* raw) {
  auto* a = static_cast<terminal_child_args*>(raw);
  kernel_sigaction dfl{};
  for (std::size_t i = 0; i < a->reset_signal_count; ++i) {
    sys(SYS_rt_sigaction, a->reset_signals[i], reinterpret_cast<long>(&dfl), 0, 8);
  }
  // A session of its own, whose controlling terminal is the new one: the terminal's
  // ^C, ^Z and SIGWINCH reach its foreground group, and nothing of Node's.
  if (sys(SYS_setsid) < 0) child_fail(a, "setsid");
  if (sys(SYS_ioctl, a->slave, TIOCSCTTY, 0) < 0) child_fail(a, "ioctl");
  // Killed with the helper, as every non-detached child (process.cpp).
  if (sys(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL) < 0) child_fail(a, "prctl");
  if (sys(SYS_getppid) != a->helper_pid) sys(SYS_exit_group, 127);
  if (a->cwd && sys(SYS_chdir, reinterpret_cast<long>(a->cwd)) < 0) {
    const int error = errno;
    if (!(error == ENOENT && a->cwd_fallback && sys(SYS_chdir, reinterpret_cast<long>(a->cwd_fallback)) == 0)) {
      errno = error;
      child_fail(a, "chdir");
    }
  }
  for (long fd = 0; fd < 3; ++fd) {
    if (sys(SYS_dup3, a->slave, fd, 0) < 0) child_fail(a, "dup2");
  }
  sys(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC);
  if (a->gid >= 0 || a->uid >= 0) sys(SYS_setgroups, 0, 0);
  if (a->gid >= 0 && sys(SYS_setgid, a->gid) < 0) child_fail(a, "setgid");
  if (a->uid >= 0 && sys(SYS_setuid, a->uid) < 0) child_fail(a, "setuid");
  const std::uint64_t none = 0;
  sys(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, 8);
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


// node-pty's terminal settings (its pty.cc), so that programs see what they saw there:
// UTF-8 input (IUTF8: a backspace erases a whole character), ^C/^D/^Z and the rest.
void set_terminal_modes(int slave) {
  termios t{};
  if (tcgetattr(slave, &t) < 0) return;
  t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t.c_oflag = OPOST | ONLCR;
  t.c_cflag = CREAD | CS8 | HUPCL;
  t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t.c_cc[VEOF] = 4, t.c_cc[VEOL] = 0xff, t.c_cc[VEOL2] = 0xff, t.c_cc[VERASE] = 0x7f;
  t.c_cc[VWERASE] = 23, t.c_cc[VKILL] = 21, t.c_cc[VREPRINT] = 18, t.c_cc[VINTR] = 3;
  t.c_cc[VQUIT] = 0x1c, t.c_cc[VSUSP] = 26, t.c_cc[VSTART] = 17, t.c_cc[VSTOP] = 19;
  t.c_cc[VLNEXT] = 22, t.c_cc[VDISCARD] = 15, t.c_cc[VMIN] = 1, t.c_cc[VTIME] = 0;
  cfsetispeed(&t, B38400);
  cfsetospeed(&t, B38400);
  tcsetattr(slave, TCSANOW, &t);
}

bool stdio_is(const spawn_options& o, protocol::stdio_kind a, protocol::stdio_kind b, protocol::stdio_kind c) {
  return o.stdio[0] == a && o.stdio[1] == b && o.stdio[2] == c;
}

}  // namespace

std::error_code resize_terminal(native_handle terminal, std::uint16_t cols, std::uint16_t rows) noexcept {
  winsize size{};
  size.ws_col = cols;
  size.ws_row = rows;
  if (ioctl(terminal, TIOCSWINSZ, &size) < 0) return {errno, std::generic_category()};
  return {};
}

launched_process launch_terminal(const spawn_request& r, const launch_context& context) noexcept {
  using kind = protocol::stdio_kind;
  const auto& o = r.options;
  const bool node_holds_master = stdio_is(o, kind::given, kind::ignore, kind::ignore);
  if (!node_holds_master && !stdio_is(o, kind::pipe, kind::pipe, kind::ignore)) return launch_failure("pty", EINVAL);
  // Never a master handed to Node as a piped end: Node aborts on a received tty.
  if (o.ipc || o.detached || (o.handover && !node_holds_master)) return launch_failure("pty", EINVAL);
  try {
    launched_process out;
    unique_fd master(node_holds_master ? fcntl(o.given_fds[0], F_DUPFD_CLOEXEC, 3)
                                       : open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
    if (!master) return launch_failure("pty", errno);
    const int unlock = 0;
    if (ioctl(master.get(), TIOCSPTLCK, &unlock) < 0) return launch_failure("pty", errno);
    unique_fd slave(ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!slave) {
      // Before Linux 4.13: by name.
      char name[64];
      if (ptsname_r(master.get(), name, sizeof name) != 0) return launch_failure("pty", errno);
      slave.reset(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
      if (!slave) return launch_failure("pty", errno);
    }
    set_terminal_modes(slave.get());
    if (const auto e = resize_terminal(master.get(), (*o.pty)[0], (*o.pty)[1])) return launch_failure("pty", e.value());

    std::vector<std::string> argv_strings;
    argv_strings.push_back(o.argv0 ? *o.argv0 : r.file);
    argv_strings.insert(argv_strings.end(), r.args.begin(), r.args.end());
    const std::vector<char*> argv = c_strings(argv_strings);
    const std::vector<char*> envp = o.env ? c_strings(*o.env) : std::vector<char*>{};
    const std::vector<std::string> candidates = candidate_paths(r);
    std::vector<const char*> candidate_ptrs;
    for (const auto& c : candidates) candidate_ptrs.push_back(c.c_str());
    const std::string node_cwd = o.node_cwd && context.node_pid > 0 ? "/proc/" + std::to_string(context.node_pid) + "/cwd" : std::string();

    terminal_child_args a{};
    a.reset_signals = non_default_signals().data();
    a.reset_signal_count = non_default_signals().size();
    a.argv = argv.data();
    a.envp = o.env ? envp.data() : environ;
    a.candidates = candidate_ptrs.data();
    a.candidate_count = candidate_ptrs.size();
    a.cwd = o.cwd ? o.cwd->c_str() : nullptr;
    a.cwd_fallback = node_cwd.empty() ? nullptr : node_cwd.c_str();
    if (!a.cwd) std::swap(a.cwd, a.cwd_fallback);
    a.slave = slave.get();
    a.helper_pid = getpid();
    a.uid = o.uid ? static_cast<long>(*o.uid) : -1;
    a.gid = o.gid ? static_cast<long>(*o.gid) : -1;
    int report[2];
    if (pipe2(report, O_CLOEXEC) < 0) return launch_failure("pipe", errno);
    unique_fd report_read(report[0]), report_write(report[1]);
    a.report_fd = report_write.get();

    thread_local std::unique_ptr<char[]> stack(new char[child_stack_size]);
    int pidfd = -1;
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid;
    {
      sigset_t all, old;
      sigfillset(&all);
      pthread_sigmask(SIG_BLOCK, &all, &old);
      const int flags = CLONE_VM | CLONE_VFORK | SIGCHLD;
      pid = __clone(terminal_child_main, stack.get() + child_stack_size, flags | CLONE_PIDFD, &a, &pidfd);
      if (pid < 0 && errno == EINVAL) pid = __clone(terminal_child_main, stack.get() + child_stack_size, flags, &a);
      pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    if (pid < 0) return launch_failure("clone", errno);
    unique_fd exit_handle(pidfd);
    report_write.reset();
    slave.reset();  // the child's copies are its own now: its exit hangs the terminal up
    failure_report failed{};
    ssize_t n;
    do n = read(report_read.get(), &failed, sizeof failed);
    while (n < 0 && errno == EINTR);
    out.create_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    if (n == static_cast<ssize_t>(sizeof failed)) {
      waitpid(pid, nullptr, 0);
      return launch_failure(failed.stage, failed.error);
    }
    if (!exit_handle) exit_handle.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
    if (!exit_handle) {
      const int e = errno;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return launch_failure("pidfd", e);
    }
    out.pid = pid;
    out.exit_handle.reset(exit_handle.release());
    // The child's parent-death signal follows this thread: it must not retire while the
    // child lives (launch_pool.hpp).
    out.launch_thread = launch_pool::pin_current_thread();
    if (!node_holds_master) {
      // The relay writes to and reads from the same master, through two descriptors.
      out.stdio[0].reset(fcntl(master.get(), F_DUPFD_CLOEXEC, 3));
      out.stdio[1].reset(fcntl(master.get(), F_DUPFD_CLOEXEC, 3));
      if (!out.stdio[0] || !out.stdio[1]) {
        const int e = errno;
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        return launch_failure("dup", e);
      }
    }
    out.terminal.reset(master.release());
    return out;
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

}  // namespace spawnhost
