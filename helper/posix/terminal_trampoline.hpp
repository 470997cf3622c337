// The terminal trampoline: the helper binary run as `spawnhost-helper --terminal-exec N
// CANDIDATE... ARGV0 ARG...` by the posix_spawn terminal launcher (pty_posix_spawn.cpp),
// as node-pty's spawn-helper on macOS. posix_spawn has made it a session leader on the
// terminal's fds 0-2; it takes the terminal as its controlling tty (TIOCSCTTY, which
// posix_spawn cannot do), then execs the program along its N PATH candidates with
// execvp's rules. A failure is written to fd 3, close-on-exec (libuv's way): end of
// file there means the exec succeeded.
#pragma once
#include <string>
#include <vector>

namespace spawnhost::terminal_trampoline {

inline constexpr const char* mode_flag = "--terminal-exec";
inline constexpr int report_fd = 3;

// What a trampoline that failed writes to report_fd.
struct failure {
  int error;
  int stage;  // an index into stage_names
};
inline constexpr const char* stage_names[] = {"ioctl", "exec"};

// The trampoline's argv, from `self` (the helper binary), the candidates and the
// program's own argv.
std::vector<std::string> arguments(const std::string& self, const std::vector<std::string>& candidates,
                                   const std::vector<std::string>& program_argv);

}  // namespace spawnhost::terminal_trampoline
