#pragma once
// The listener for forked children's IPC channels that Node owns (spawn option
// ipc_connected, docs/ipc.md): Node makes its end of a child's channel as its own IPC
// pipe, connected here, so it reads, writes and passes descriptors on it with its own
// code, two hops as child_process has; the helper accepts the connection and gives it
// to the child as fd 3, and never sees the channel's bytes. Linux only (an abstract
// socket: no file to clean up); elsewhere the channel is relayed.
#include <string>

namespace spawnhost {

// Two sockets, one name (Node versions spell it differently); -1: none.
struct channel_listener {
  int exact = -1;
  int padded = -1;
  explicit operator bool() const noexcept { return exact >= 0; }
};

#ifdef _WIN32
inline bool listen_channel(const std::string&, channel_listener&) noexcept { return false; }
inline int accept_channel(const channel_listener&, int, std::string& why) noexcept { return why = "not supported here", -1; }
inline void close_channel(int) noexcept {}
#else
// Listens on the abstract unix socket `name`; false (errno set) where it cannot.
bool listen_channel(const std::string& name, channel_listener& out) noexcept;

// Accepts the connection Node made just before its spawn request (it is queued
// already; waits briefly at most). Only a connection from `node_pid` is taken: any
// other is closed. -1 with `why` set on failure.
int accept_channel(const channel_listener& listener, int node_pid, std::string& why) noexcept;

void close_channel(int fd) noexcept;
#endif

}  // namespace spawnhost
