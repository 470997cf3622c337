// Terminal children on posix_spawn (pty/terminal.hpp): the macOS helper's terminal
// launcher, and the Linux helper's with SPAWNHOST_HELPER_POSIX_SPAWN=1, where the tests
// run it. Only the hooks in posix_spawn_{linux,darwin}.cpp differ between the two.
//
// The master is Node's (stdio[0] kind given) or opened here (posix_openpt), unlocked,
// its slave given node-pty's modes and the window size before the spawn. posix_spawn
// then makes the child a session leader (POSIX_SPAWN_SETSID) with the slave opened as
// its fds 0-2 by file actions, no signal blocked and every disposition the helper
// changed reset. What posix_spawn cannot do is TIOCSCTTY: a Linux session leader that
// opens a tty without O_NOCTTY acquires it as its controlling terminal, but BSD
// kernels want the ioctl, and macOS was not available to check. So the child starts
// as the helper binary's terminal trampoline (terminal_trampoline.hpp), which does the
// ioctl and execs the program; on Linux too, so that the path macOS runs is the tested one.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include "posix/launch_common.hpp"
#include "posix/launch_posix_spawn.hpp"
#include "pty/terminal.hpp"
#include "posix/pty_common.hpp"
#include "posix/terminal_trampoline.hpp"

extern char** environ;

namespace spawnhost {
namespace {

// The master, close-on-exec and unlocked: Node's copy, or a new one. posix_openpt takes
// no O_CLOEXEC on macOS; until fcntl sets it no child can inherit the master anyway,
// since every posix_spawn launch closes what it does not place (close_from or
// POSIX_SPAWN_CLOEXEC_DEFAULT) and the clone child marks every descriptor close-on-exec.
int open_master(const spawn_options& o, bool node_holds_master, unique_fd& master) {
  if (node_holds_master) {
    master.reset(fcntl(o.given_fds[0], F_DUPFD_CLOEXEC, 3));
  } else {
    master.reset(posix_openpt(O_RDWR | O_NOCTTY));
    if (master) {
      fcntl(master.get(), F_SETFD, FD_CLOEXEC);
      fcntl(master.get(), F_SETFL, fcntl(master.get(), F_GETFL) | O_NONBLOCK);  // the relay's reads
    }
  }
  if (!master) return errno;
  if (grantpt(master.get()) < 0 || unlockpt(master.get()) < 0) return errno;
  return 0;
}

// The slave onto 0-2 (opened without O_NOCTTY: see the top of this file), the
// trampoline's report socket onto 3, nothing else; the child's directory.
int describe_descriptors(posix_spawn_file_actions_t& actions, const std::string& terminal, unique_fd& report,
                         const std::string& dir) {
  using terminal_trampoline::report_fd;
  if (int e = posix_spawn_file_actions_addopen(&actions, 0, terminal.c_str(), O_RDWR, 0)) return e;
  for (int fd = 1; fd < 3; ++fd) {
    if (int e = posix_spawn_file_actions_adddup2(&actions, 0, fd)) return e;
  }
  if (report.get() == report_fd) {  // dup2 onto itself would keep it close-on-exec
    const int moved = fcntl(report.get(), F_DUPFD_CLOEXEC, report_fd + 1);
    if (moved < 0) return errno;
    report.reset(moved);
  }
  if (int e = posix_spawn_file_actions_adddup2(&actions, report.get(), report_fd)) return e;
  if (int e = posix_spawn_platform::close_from(&actions, report_fd + 1)) return e;
  if (!dir.empty()) return posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  return 0;
}

// What the trampoline reported: nothing (end of file: the program runs), or why not.
bool read_failure(int report, terminal_trampoline::failure& out) {
  ssize_t n;
  do n = read(report, &out, sizeof out);
  while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof out);
}

}  // namespace

launched_process launch_terminal_with_posix_spawn(const spawn_request& r, const launch_context& context) noexcept {
  const auto& o = r.options;
  bool node_holds_master = false;
  if (const int e = check_terminal_request(o, node_holds_master)) return launch_failure("pty", e);
  // posix_spawn cannot change credentials (launch_posix_spawn.hpp).
  if (o.uid || o.gid) return launch_failure(o.uid ? "setuid" : "setgid", ENOTSUP);
  try {
    unique_fd master;
    if (const int e = open_master(o, node_holds_master, master)) return launch_failure("pty", e);
    std::string terminal;
    if (const int e = posix_spawn_platform::terminal_path(master.get(), terminal)) return launch_failure("pty", e);
    // Our own descriptor of the slave, for its modes, and held until the child has its own.
    unique_fd slave(open(terminal.c_str(), O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!slave) return launch_failure("pty", errno);
    set_terminal_modes(slave.get());
    if (const auto e = resize_terminal(master.get(), (*o.pty)[0], (*o.pty)[1])) return launch_failure("pty", e.value());
    std::string dir;
    if (const int e = choose_directory(r, context, dir)) return launch_failure("chdir", e);
    int ends[2];
    if (posix_spawn_platform::cloexec_socketpair(ends) < 0) return launch_failure("pipe", errno);
    unique_fd report(ends[0]), child_report(ends[1]);

    spawn_description description;
    short flags = POSIX_SPAWN_SETSID;
    if (int e = describe_signals(description.attributes, flags)) return launch_failure("posix_spawnattr", e);
    if (int e = posix_spawnattr_setflags(&description.attributes, flags)) return launch_failure("posix_spawnattr", e);
    if (int e = describe_descriptors(description.actions, terminal, child_report, dir)) return launch_failure("posix_spawn_file_actions", e);

    const std::string self = context.helper_binary ? context.helper_binary : posix_spawn_platform::own_executable();
    std::vector<std::string> program_argv{o.argv0 ? *o.argv0 : r.file};
    program_argv.insert(program_argv.end(), r.args.begin(), r.args.end());
    const std::vector<std::string> argv_strings = terminal_trampoline::arguments(self, candidate_paths(r), program_argv);
    const std::vector<char*> argv = c_strings(argv_strings);
    const std::vector<char*> envp = o.env ? c_strings(*o.env) : std::vector<char*>{};

    launched_process out;
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = -1;
    const int spawn_error = self.empty() ? ENOENT
                                         : posix_spawn(&pid, self.c_str(), &description.actions, &description.attributes,
                                                       argv.data(), o.env ? envp.data() : environ);
    child_report.reset();
    terminal_trampoline::failure failed{};
    const bool trampoline_failed = spawn_error == 0 && read_failure(report.get(), failed);
    out.create_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    if (spawn_error) return launch_failure("exec", spawn_error);
    if (trampoline_failed) {
      waitpid(pid, nullptr, 0);  // it exited with 127 before exec: collect it now
      const bool known = failed.stage >= 0 && failed.stage < 2;
      return launch_failure(known ? terminal_trampoline::stage_names[failed.stage] : "exec", failed.error);
    }
    slave.reset();  // the child's copies are its own now: its exit hangs the terminal up
    out.pid = pid;
    if (std::error_code e = posix_spawn_platform::open_exit_handle(pid, out.exit_handle)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return launch_failure("exit_handle", e.value());
    }
    return hand_on_master(std::move(out), std::move(master), node_holds_master);
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

}  // namespace spawnhost
