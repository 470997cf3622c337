// The sync channel's socket (docs/sync.md): Node's blocking calls (spawnSync, an early
// `pid` read) write requests into it and read answers from it with non-blocking system
// calls, while its event loop, which owns stdin/stdout, cannot run.
// (Before issue 22 it was two FIFOs in a directory of TMPDIR; docs/sync.md says why not.)
#pragma once
#include <system_error>

namespace spawnhost {

struct sync_socket_ends {
  int request = -1;  // frames from Node: our end, read on the event loop
  int reply = -1;    // frames to Node (a second descriptor for the same socket)
};

// Takes `fd`, one end of a socketpair Node created with the helper's stdio (--sync-fd):
// it has no name in the file system, so no other process can reach it. Checks that it
// is a stream socket, makes it non-blocking and close-on-exec, and gives the reply side
// a descriptor of its own (the two asio streams each own theirs).
// Windows: not supported (std::errc::not_supported); Node falls back there.
std::error_code open_sync_socket(int fd, sync_socket_ends& out) noexcept;

}  // namespace spawnhost
