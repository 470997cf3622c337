// The sync channel's socket (docs/sync.md): Node's blocking calls (spawnSync, an early
// `pid` read) write requests into it and read answers from it with non-blocking system
// calls, while its event loop, which owns stdin/stdout, cannot run.
// (It was once two FIFOs in a directory of TMPDIR; docs/sync.md says why not.)
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
// Windows: not supported (std::errc::not_supported): Node's end of a libuv pipe has no
// descriptor there; the sync channel is open_sync_pipe's.
std::error_code open_sync_socket(int fd, sync_socket_ends& out) noexcept;

// Windows (--sync-pipe NAME): creates the named pipe NAME, which only this logon
// session may open and only Node (our parent) may use, and returns C runtime
// descriptors for its two directions. Their first read or write waits until Node has
// connected and its end of the pipe is non-blocking (helper/windows/sync_pipe.cpp).
// POSIX: not supported (std::errc::not_supported).
std::error_code open_sync_pipe(const char* name, sync_socket_ends& out) noexcept;

}  // namespace spawnhost
