// Which output of a handed-over launch became readable first
// (docs/decisions/handover-output-order.md). Node starts watching handed-over sockets only when their
// descriptors arrive, ~1.5 ms after spawn(); a Node thread busy until then finds both
// outputs readable, and libuv reads them in the order it started watching them
// (stdout's first, epoll's ready list keeps the order of EPOLL_CTL_ADD), not in the
// order the child wrote them, as it does for child_process's own pipes (watched from
// inside spawn()). The helper sees that order as it happens and says "stderr before
// stdout" (Node's default is the other); its node_ipc sends it to Node as a line after
// the launch's descriptors.
//
// The watch must not keep an output open: when Node closes (destroys) a child's stdout,
// the child's next write fails with EPIPE, as with child_process, only if no other
// descriptor of that end is left. Linux watches the ends in an epoll set of its own,
// which holds no reference to them: an entry leaves the set when Node closes the last
// descriptor (linux/first_output.cpp). macOS's kqueue forgets an event when its
// descriptor closes, so darwin/first_output.cpp keeps copies of both ends until the
// first readability or the child's reap; there a destroyed output still takes writes
// for that long.
//
// A launch stops being watched at its first readability (the child's exit makes both
// readable too), at forget() (the child was reaped), when more than max_watched
// launches are watched (the oldest), and with this object. The waits never block the
// loop: they are readiness waits on asio's reactor.
#pragma once
#include <asio/io_context.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace spawnhost {

class first_output {
 public:
  // Launch `id` (process `pid`): its stderr became readable before its stdout.
  using stderr_first = std::function<void(std::uint64_t id, std::uint64_t pid)>;

  first_output(asio::io_context& io, stderr_first report, std::size_t max_watched = 1024);
  ~first_output();
  first_output(const first_output&) = delete;
  first_output& operator=(const first_output&) = delete;

  // Watches `out` and `err`, the parent ends of launch id's stdout and stderr, which
  // stay the caller's. A watch that cannot be set up (out of descriptors) leaves the
  // launch unwatched: the order is then libuv's.
  void watch(std::uint64_t id, std::uint64_t pid, int out, int err);
  // Launch id's child was reaped: nothing more is said of it.
  void forget(std::uint64_t id);
  // Launches watched now.
  std::size_t watching() const noexcept;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;  // shared: a wait's completion may outlive this object
};

}  // namespace spawnhost
