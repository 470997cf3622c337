// Linux: see posix/first_output.hpp. The outputs' ends join an epoll set of the watch's own,
// one-shot, and the set's descriptor waits on asio's reactor. An epoll entry holds no
// reference to its file: the helper closes its own descriptors once they are handed
// over, and when Node closes the last one the entry leaves the set and the child's
// writes fail with EPIPE, as they do with child_process. Entries cannot be removed
// without a descriptor, so a launch that is no longer watched may still report one
// readability of each end (one-shot: never more): it is looked up and ignored.
#include "posix/first_output.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <deque>
#include <unordered_map>
#include <utility>

namespace spawnhost {

struct first_output::impl : std::enable_shared_from_this<impl> {
  struct launch {
    std::uint64_t id, pid;
  };

  impl(asio::io_context& io, stderr_first report, std::size_t max_watched)
      : report(std::move(report)), max_watched(max_watched), set(io) {
    // Without a set of its own (out of descriptors) nothing is watched: libuv's order.
    if (const int fd = ::epoll_create1(EPOLL_CLOEXEC); fd >= 0) set.assign(fd);
  }

  stderr_first report;
  const std::size_t max_watched;
  asio::posix::stream_descriptor set;  // the epoll set
  bool waiting = false;
  // A token per watch, not the launch id: an end's entry outlives its launch's watch.
  std::uint64_t next_token = 1;
  std::unordered_map<std::uint64_t, launch> by_token;
  std::unordered_map<std::uint64_t, std::uint64_t> token_of;  // launch id -> token
  std::deque<std::uint64_t> order;                            // tokens, oldest first

  bool add(int fd, std::uint64_t data) {
    epoll_event ev{};
    // Readable, or ended (the child's exit): whichever comes first, once.
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    ev.data.u64 = data;
    return ::epoll_ctl(set.native_handle(), EPOLL_CTL_ADD, fd, &ev) == 0;
  }

  void watch(std::uint64_t id, std::uint64_t pid, int out, int err) {
    if (!set.is_open()) return;
    forget(id);
    const std::uint64_t token = next_token++;
    // stdout first: two outputs already readable are reported in the order they were
    // added, stdout's, Node's default, so nothing is said.
    if (!add(out, token << 1)) return;
    if (!add(err, token << 1 | 1)) {
      ::epoll_ctl(set.native_handle(), EPOLL_CTL_DEL, out, nullptr);
      return;
    }
    by_token.emplace(token, launch{id, pid});
    token_of[id] = token;
    order.push_back(token);
    // The oldest launches watched give way: their order mattered only to a Node thread
    // that has not read them yet.
    while (by_token.size() > max_watched) {
      if (auto it = by_token.find(order.front()); it != by_token.end()) forget(it->second.id);
      order.pop_front();
    }
    // Tokens of launches no longer watched: dropped once they outnumber the rest.
    if (order.size() > 2 * by_token.size() + 64) {
      std::erase_if(order, [this](std::uint64_t t) { return !by_token.contains(t); });
    }
    wait();
  }

  void forget(std::uint64_t id) {
    const auto it = token_of.find(id);
    if (it == token_of.end()) return;
    by_token.erase(it->second);
    token_of.erase(it);
    // Nothing left to watch: no wait stays pending (it would keep the loop's run() from
    // ending in an idle helper).
    if (by_token.empty() && waiting) set.cancel();
  }

  // One wait at a time, while a launch is watched: an idle helper has no wait pending
  // (ignored reports of launches no longer watched are read with the next one).
  void wait() {
    if (waiting || by_token.empty()) return;
    waiting = true;
    set.async_wait(asio::posix::stream_descriptor::wait_read, [weak = weak_from_this()](std::error_code ec) {
      const auto self = weak.lock();
      if (!self) return;
      self->waiting = false;
      if (ec == asio::error::operation_aborted) return self->wait();  // a watch may have come since
      if (ec) {
        std::error_code ignored;
        self->set.close(ignored);  // nothing more can be watched: libuv's order from now on
        return;
      }
      self->read_ready();
      self->wait();
    });
  }

  // In the order the ends became ready: epoll's ready list.
  void read_ready() {
    epoll_event events[64];
    int n;
    do {
      do n = ::epoll_wait(set.native_handle(), events, 64, 0);
      while (n < 0 && errno == EINTR);
      for (int k = 0; k < n; ++k) {
        const auto it = by_token.find(events[k].data.u64 >> 1);
        if (it == by_token.end()) continue;  // decided already, or no longer watched
        const launch l = it->second;
        forget(l.id);
        if (events[k].data.u64 & 1) report(l.id, l.pid);
      }
    } while (n == 64);
  }
};

first_output::first_output(asio::io_context& io, stderr_first report, std::size_t max_watched)
    : impl_(std::make_shared<impl>(io, std::move(report), max_watched)) {}

first_output::~first_output() = default;

void first_output::watch(std::uint64_t id, std::uint64_t pid, int out, int err) { impl_->watch(id, pid, out, err); }

void first_output::forget(std::uint64_t id) { impl_->forget(id); }

std::size_t first_output::watching() const noexcept { return impl_->by_token.size(); }

}  // namespace spawnhost
