// The terminal trampoline (terminal_trampoline.hpp), and its entry from main().
#include "posix/terminal_trampoline.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "pty/terminal.hpp"

extern char** environ;

namespace spawnhost {
namespace terminal_trampoline {
namespace {

[[noreturn]] void fail(int error, int stage) noexcept {
  const failure report{error, stage};
  [[maybe_unused]] const ssize_t n = write(report_fd, &report, sizeof report);
  _exit(127);
}

}  // namespace

std::vector<std::string> arguments(const std::string& self, const std::vector<std::string>& candidates,
                                   const std::vector<std::string>& program_argv) {
  std::vector<std::string> out{self, mode_flag, std::to_string(candidates.size())};
  out.insert(out.end(), candidates.begin(), candidates.end());
  out.insert(out.end(), program_argv.begin(), program_argv.end());
  return out;
}

}  // namespace terminal_trampoline

int run_terminal_trampoline(int argc, char** argv) noexcept {
  using namespace terminal_trampoline;
  if (argc < 2 || std::strcmp(argv[1], mode_flag) != 0) return -1;
  // Only the launcher starts this mode; anything else is a usage error, reported as
  // the helper reports one.
  std::size_t count = 0;
  const char* text = argc > 2 ? argv[2] : "";
  const auto [end, ec] = std::from_chars(text, text + std::strlen(text), count);
  if (ec != std::errc() || *end || count == 0 || static_cast<std::size_t>(argc) < 3 + count + 1) return 2;
  // Our report descriptor must not reach the program: its end of file tells the
  // launcher that the exec succeeded.
  fcntl(report_fd, F_SETFD, FD_CLOEXEC);
  // On Linux opening the terminal as a session leader already made it ours, and this
  // is a no-op; BSD kernels (macOS) acquire a controlling tty only this way.
  if (ioctl(0, TIOCSCTTY, 0) < 0) fail(errno, 0);
  char** const program_argv = argv + 3 + count;
  int saved = ENOENT;
  for (std::size_t i = 0; i < count; ++i) {
    execve(argv[3 + i], program_argv, environ);
    if (errno == EACCES) saved = EACCES;
    else if (errno != ENOENT && errno != ENOTDIR) { saved = errno; break; }
  }
  fail(saved, 1);
}

}  // namespace spawnhost
