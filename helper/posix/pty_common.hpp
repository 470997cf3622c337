// What both POSIX terminal launchers share (pty/terminal.hpp): the clone one of Linux
// (pty_linux.cpp) and the posix_spawn one of macOS, also run on Linux with
// SPAWNHOST_HELPER_POSIX_SPAWN=1 (pty_posix_spawn.cpp). Which requests a terminal can
// serve, the terminal's modes, and handing the master on once the child runs.
#pragma once
#include "os_handle.hpp"
#include "launch/process.hpp"

namespace spawnhost {

// 0 for a request a terminal launcher can serve, else EINVAL. `node_holds_master`:
// Node gave the master (stdio given, ignore, ignore) and reads and writes it itself;
// else the helper relays it (pipe, pipe, ignore). Never a master handed to Node as a
// piped end: Node aborts on a received tty. No IPC channel, not detached.
int check_terminal_request(const spawn_options& options, bool& node_holds_master) noexcept;

// node-pty's terminal settings (its pty.cc), so that programs see what they saw there:
// UTF-8 input (IUTF8 where the platform has it: a backspace erases a whole character),
// ^C/^D/^Z and the rest.
void set_terminal_modes(int slave) noexcept;

// The end of a terminal launch whose child runs (`out` has its pid and exit handle):
// the master becomes out.terminal, and, where the helper relays it, also stdio[0] and
// stdio[1] (the relay writes to and reads from the same master, through two
// descriptors). If those copies cannot be made, the child is killed and collected.
launched_process hand_on_master(launched_process out, unique_fd master, bool node_holds_master) noexcept;

}  // namespace spawnhost
