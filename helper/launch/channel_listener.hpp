#pragma once
// The listener for forked children's IPC channels that Node owns (spawn option
// ipc_connected, docs/ipc.md): Node makes its end of a child's channel as its own IPC
// pipe, connected here, so it reads, writes and passes descriptors on it with its own
// code, two hops as child_process has; the helper accepts the connection and gives it
// to the child as fd 3, and never sees the channel's bytes. The name is an abstract
// socket on Linux (no file to clean up), or a path (it starts with "/": macOS, and
// Linux with SPAWNHOST_HELPER_POSIX_SPAWN=1, which tests the macOS helper's code): a
// socket in a directory only Node's user can enter, made by Node, removed with it by
// the helper when it ends. Windows has none: its channels are relayed.
#include <string>

namespace spawnhost {

// Two sockets, one abstract name (Node versions spell it differently), or one socket
// on a path; -1: none.
struct channel_listener {
  int exact = -1;
  int padded = -1;
  std::string path;  // the socket file, for a path
  explicit operator bool() const noexcept { return exact >= 0; }
};

#ifdef _WIN32
inline bool listen_channel(const std::string&, channel_listener&) noexcept { return false; }
inline int accept_channel(const channel_listener&, int, std::string& why) noexcept { return why = "not supported here", -1; }
inline void close_channel(int) noexcept {}
inline void remove_channel_listener(channel_listener&) noexcept {}
#else
// Listens on the unix socket `name` (abstract, or a path); false (errno set) where it
// cannot.
bool listen_channel(const std::string& name, channel_listener& out) noexcept;

// Accepts the connection Node made just before its spawn request (it is queued
// already; waits briefly at most). Only a connection from `node_pid` is taken: any
// other is closed. -1 with `why` set on failure.
int accept_channel(const channel_listener& listener, int node_pid, std::string& why) noexcept;

void close_channel(int fd) noexcept;

// Closes the listener; a path's socket file and its directory go too.
void remove_channel_listener(channel_listener& listener) noexcept;
#endif

}  // namespace spawnhost
