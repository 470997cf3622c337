// macOS: the operating-system side of a child (process.hpp), on the portable
// posix_spawn launcher (helper/posix/launch_posix_spawn.cpp, tested on Linux) with
// kqueue exit handles (posix_spawn_darwin.cpp).
// UNVERIFIED: compiled for aarch64-macos and x86_64-macos by zig on Linux, never run on
// macOS (docs/macos.md says what that leaves open).
#include <signal.h>
#include <sys/event.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syslimits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <thread>

#include "posix/launch_posix_spawn.hpp"
#include "launch/process.hpp"
#include "launch/signal_table.hpp"

namespace spawnhost {

launched_process launch_process(const spawn_request& r, const launch_context& context) noexcept {
  // uid/gid fail with ENOTSUP here: macOS's posix_spawn cannot set them, and there is
  // no clone launcher to hand them to.
  return launch_with_posix_spawn(r, context);
}

std::error_code reap_process(int pid, int, exit_status& out) noexcept {
  // The exit handle (a kqueue) said the child exited; it is ours and unreaped, so its
  // PID is not reused before this.
  int status = 0;
  pid_t got;
  do got = waitpid(pid, &status, 0);
  while (got < 0 && errno == EINTR);
  if (got < 0) return {errno, std::generic_category()};
  if (WIFEXITED(status)) out.code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) out.signal = WTERMSIG(status);
  return {};
}

std::error_code signal_process(int pid, int, int signal) noexcept {
  // By PID: safe while the child is unreaped, which the caller ensures.
  if (::kill(pid, signal) == 0) return {};
  return {errno, std::generic_category()};
}

namespace {
// Node's spelling on macOS; where two names share a number the first is Node's.
constexpr std::array<named_signal, 32> signals{{
    {"SIGHUP", SIGHUP},     {"SIGINT", SIGINT},     {"SIGQUIT", SIGQUIT},     {"SIGILL", SIGILL},
    {"SIGTRAP", SIGTRAP},   {"SIGABRT", SIGABRT},   {"SIGIOT", SIGIOT},       {"SIGBUS", SIGBUS},
    {"SIGFPE", SIGFPE},     {"SIGKILL", SIGKILL},   {"SIGUSR1", SIGUSR1},     {"SIGSEGV", SIGSEGV},
    {"SIGUSR2", SIGUSR2},   {"SIGPIPE", SIGPIPE},   {"SIGALRM", SIGALRM},     {"SIGTERM", SIGTERM},
    {"SIGCHLD", SIGCHLD},   {"SIGCONT", SIGCONT},   {"SIGSTOP", SIGSTOP},     {"SIGTSTP", SIGTSTP},
    {"SIGTTIN", SIGTTIN},   {"SIGTTOU", SIGTTOU},   {"SIGURG", SIGURG},       {"SIGXCPU", SIGXCPU},
    {"SIGXFSZ", SIGXFSZ},   {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF},   {"SIGWINCH", SIGWINCH},
    {"SIGIO", SIGIO},       {"SIGINFO", SIGINFO},   {"SIGSYS", SIGSYS},       {"SIGEMT", SIGEMT},
}};

// libc has no strerrorname_np here: the codes a launch, a pipe or removeTree can report.
struct named_errno {
  int number;
  const char* name;
};
constexpr named_errno errno_names[] = {
    {EPERM, "EPERM"},     {ENOENT, "ENOENT"},   {ESRCH, "ESRCH"},       {EINTR, "EINTR"},
    {EIO, "EIO"},         {ENXIO, "ENXIO"},     {E2BIG, "E2BIG"},       {ENOEXEC, "ENOEXEC"},
    {EBADF, "EBADF"},     {ECHILD, "ECHILD"},   {EAGAIN, "EAGAIN"},     {ENOMEM, "ENOMEM"},
    {EACCES, "EACCES"},   {EFAULT, "EFAULT"},   {EBUSY, "EBUSY"},       {EEXIST, "EEXIST"},
    {EXDEV, "EXDEV"},     {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},     {EINVAL, "EINVAL"},
    {ENFILE, "ENFILE"},   {EMFILE, "EMFILE"},   {ETXTBSY, "ETXTBSY"},   {EFBIG, "EFBIG"},
    {ENOSPC, "ENOSPC"},   {EROFS, "EROFS"},     {EMLINK, "EMLINK"},     {EPIPE, "EPIPE"},
    {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"}, {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"},
    {ENOTSUP, "ENOTSUP"}, {ECONNRESET, "ECONNRESET"}, {ETIMEDOUT, "ETIMEDOUT"}, {EBADARCH, "EBADARCH"},
    {EBADEXEC, "EBADEXEC"}, {EBADMACHO, "EBADMACHO"},
};

// Parent death without PR_SET_PDEATHSIG: a thread waits for NOTE_EXIT on Node's pid
// and sends us SIGTERM, the signal Linux's parent-death setting sends, so both end the
// same way (termination_signals). Stdin's EOF covers most cases first; this covers a
// Node that is SIGKILLed while someone else holds our stdin open.
void watch_parent(int node_pid) {
  const int kq = kqueue();
  if (kq < 0) return;
  struct kevent change;
  EV_SET(&change, node_pid, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, nullptr);
  if (kevent(kq, &change, 1, nullptr, 0, nullptr) < 0) {
    close(kq);
    if (errno == ESRCH) kill(getpid(), SIGTERM);  // gone already
    return;
  }
  std::thread([kq] {
    struct kevent event;
    while (kevent(kq, nullptr, 0, &event, 1, nullptr) < 0 && errno == EINTR) {
    }
    kill(getpid(), SIGTERM);
  }).detach();
}
}  // namespace

std::optional<int> signal_number(std::string_view name) noexcept { return number_in(signals, name); }

std::optional<std::string_view> signal_name(int number) noexcept { return name_in(signals, number); }

const char* errno_name(int error) noexcept {
  for (const auto& e : errno_names) {
    if (e.number == error) return e.name;
  }
  return "UNKNOWN";
}

const char* error_name(const std::error_code& error) noexcept { return errno_name(error.value()); }

std::uint64_t current_process_id() noexcept { return static_cast<std::uint64_t>(getpid()); }

helper_origin prepare_helper_process(bool leave_parent) noexcept {
  helper_origin origin;
  origin.node_pid = getppid();
  const int node_group = getpgrp();
  if (leave_parent) {
    // No threads exist yet, so a plain fork is safe (see linux/process.cpp).
    const pid_t pid = fork();
    if (pid > 0) _exit(0);
  }
  // Our own process group, as on Linux: a child signalling its group cannot reach us.
  setpgid(0, 0);
  signal(SIGPIPE, SIG_IGN);
  // Many children at once need many descriptors. macOS refuses a soft limit above
  // OPEN_MAX even when the hard limit is unlimited.
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
    const rlim_t wanted = lim.rlim_max;
    lim.rlim_cur = wanted;
    if (setrlimit(RLIMIT_NOFILE, &lim) < 0 && wanted > OPEN_MAX) {
      lim.rlim_cur = OPEN_MAX;
      setrlimit(RLIMIT_NOFILE, &lim);
    }
  }
  // Inherited descriptors need no close-on-exec marking: every launch uses
  // POSIX_SPAWN_CLOEXEC_DEFAULT. Parent death: see watch_parent (not for a helper that
  // left its parent: stdin's EOF tells us then).
  if (!leave_parent) watch_parent(origin.node_pid);
  const int send_buffer = 1 << 20;
  setsockopt(1, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
  origin.node_group = node_group == getpgrp() ? 0 : node_group;
  return origin;
}

}  // namespace spawnhost
