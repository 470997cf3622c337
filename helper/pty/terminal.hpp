// Terminal children (spawn option pty, docs/pty.md): the child runs on a new
// pseudo-terminal, as session leader with the terminal as its controlling tty and its
// fds 0-2, its window size set before exec; on Windows a ConPTY pseudo console. One
// implementation per platform (linux/pty_linux.cpp; darwin/pty.cpp, on
// posix/pty_posix_spawn.cpp; windows/pty/), so the session and the launch pool stay
// unaware of it: they call launch_child.
#pragma once
#include <cstdint>
#include <system_error>

#include "launch/process.hpp"

namespace spawnhost {

// Creates the terminal and its child. Blocking: call it on a launch thread. The
// result's `terminal` is the helper's copy of the master (for resize; on Windows a key
// to the child's pseudo console); with stdio[0] kind given, Node holds the master and
// reads and writes it itself, else stdio[0] and stdio[1] are the master for the relay
// (bytes to the terminal, bytes it shows).
launched_process launch_terminal(const spawn_request& request, const launch_context& context) noexcept;

// The helper binary's other use, on POSIX: the terminal trampoline the posix_spawn
// terminal launcher starts (posix/terminal_trampoline.hpp). Returns -1 when argv does
// not ask for it (always, on Windows); else it execs the program, or returns its exit
// code (2: bad arguments), or exits 127 after reporting why it could not.
int run_terminal_trampoline(int argc, char** argv) noexcept;

// Sets a terminal's window size; the kernel sends SIGWINCH to its foreground group
// (Windows: ResizePseudoConsole). An error is the session's to report to Node.
std::error_code resize_terminal(native_handle terminal, std::uint16_t cols, std::uint16_t rows) noexcept;

// The launcher for any request: terminal children to launch_terminal.
inline launched_process launch_child(const spawn_request& request, const launch_context& context) noexcept {
  return request.options.pty ? launch_terminal(request, context) : launch_process(request, context);
}

}  // namespace spawnhost
