// Which output of a handed-over launch became readable first (docs/architecture.md,
// "Child streams"). Node starts watching handed-over sockets only when their
// descriptors arrive, ~1.5 ms after spawn(); a Node thread busy until then finds both
// outputs readable, and libuv reads them in the order it started watching them
// (stdout's first, epoll's ready list keeps the order of EPOLL_CTL_ADD), not in the
// order the child wrote them, as it does for child_process's own pipes (watched from
// inside spawn()). The helper sees that order as it happens: it keeps a copy of each
// output's parent end after handing it over, waits for the first to become readable,
// and then closes both. Only "stderr before stdout" needs saying (Node's default is
// the other); its node_ipc sends it to Node as a line after the launch's descriptors.
//
// Copies close at the first readability the helper sees (the child's exit makes both
// readable too), at forget() (the child was reaped: a grandchild may still hold its
// ends), when more than max_watched launches are watched (the oldest), and with this
// object. A Node that reads an output before the helper's loop looks takes its edge
// (epoll drops an edge whose bytes are gone when it is reported): the copies then wait
// for the next readability, which is harmless to the order (Node read first, in the
// order it chose) and bounded by the child's life and max_watched. The waits never
// block the loop: they are asio's readiness waits.
#pragma once
#include <asio/io_context.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>

namespace spawnhost {

class first_output {
 public:
  // Launch `id` (process `pid`): its stderr became readable before its stdout.
  using stderr_first = std::function<void(std::uint64_t id, std::uint64_t pid)>;

  first_output(asio::io_context& io, stderr_first report, std::size_t max_watched = 1024);
  ~first_output();
  first_output(const first_output&) = delete;
  first_output& operator=(const first_output&) = delete;

  // Watches copies of `out` and `err`, the parent ends of launch id's stdout and
  // stderr (the descriptors themselves stay the caller's). A copy that cannot be made
  // (EMFILE) leaves the launch unwatched: the order is then libuv's, as before.
  void watch(std::uint64_t id, std::uint64_t pid, int out, int err);
  // Launch id's child was reaped: its copies close, if still open.
  void forget(std::uint64_t id);
  // Launches watched now (each holds two descriptors).
  std::size_t watching() const noexcept;

 private:
  struct entry;
  void on_readable(const std::shared_ptr<entry>& e, int fd);

  asio::io_context& io_;
  stderr_first report_;
  const std::size_t max_watched_;
  std::unordered_map<std::uint64_t, std::shared_ptr<entry>> entries_;
  std::deque<std::weak_ptr<entry>> order_;  // oldest first; expired ones linger a while
};

}  // namespace spawnhost
