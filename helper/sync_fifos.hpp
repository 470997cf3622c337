// The sync channel's two FIFOs (docs/sync.md): Node's blocking calls (spawnSync, an
// early `pid` read) write requests into one and read answers from the other with
// plain blocking system calls, while its event loop, which owns stdin/stdout, cannot run.
#pragma once
#include <string>
#include <system_error>

namespace spawnhost {

struct sync_fifo_ends {
  int request = -1;  // frames from Node: our end, read on the event loop
  int reply = -1;    // frames to Node
};

// Creates `<dir>/request` and `<dir>/reply` (mode 0600; `dir` is Node's private
// directory) and opens our ends without blocking, close-on-exec.
// POSIX: both ends are opened read-write, so Node's opens never wait for us and the
//   request FIFO never reads as ended while Node has not opened it yet.
// Windows: not supported (std::errc::not_supported); Node falls back there.
std::error_code open_sync_fifos(const std::string& dir, sync_fifo_ends& out) noexcept;

// Removes what open_sync_fifos created, if Node has not already: best effort, at exit.
void remove_sync_fifos(const std::string& dir) noexcept;

}  // namespace spawnhost
