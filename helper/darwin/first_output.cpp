// macOS: see posix/first_output.hpp. kqueue forgets an event when the descriptor it
// was registered with closes, so the watch holds copies of both ends (F_DUPFD_CLOEXEC)
// until the first readability, forget(), the limit or the object's end. Until then a
// child's write to an output Node destroyed still succeeds (Linux has no such window).
#include "posix/first_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace spawnhost {

namespace {
int copy_of(int fd) {
  int copy;
  do copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  while (copy < 0 && errno == EINTR);
  return copy;
}
}  // namespace

struct first_output::impl : std::enable_shared_from_this<impl> {
  struct entry {
    entry(asio::io_context& io, std::uint64_t id, std::uint64_t pid, int out, int err)
        : id(id), pid(pid), out(io, out), err(io, err) {}
    std::uint64_t id, pid;
    // Assigned descriptors: asio removes them from its kqueue as it closes them.
    asio::posix::stream_descriptor out, err;
  };

  impl(asio::io_context& io, stderr_first report, std::size_t max_watched)
      : io(io), report(std::move(report)), max_watched(max_watched) {}

  asio::io_context& io;
  stderr_first report;
  const std::size_t max_watched;
  std::unordered_map<std::uint64_t, std::shared_ptr<entry>> entries;
  std::deque<std::weak_ptr<entry>> order;  // oldest first; expired ones linger a while

  void watch(std::uint64_t id, std::uint64_t pid, int out, int err) {
    const int out_copy = copy_of(out);
    const int err_copy = out_copy < 0 ? -1 : copy_of(err);
    if (err_copy < 0) {
      if (out_copy >= 0) ::close(out_copy);
      return;
    }
    auto e = std::make_shared<entry>(io, id, pid, out_copy, err_copy);
    // stdout first: two outputs readable when they are registered are reported in that
    // order, which is Node's default, so nothing is said.
    for (auto* d : {&e->out, &e->err}) {
      const int fd = d == &e->out ? 1 : 2;
      d->async_wait(asio::posix::stream_descriptor::wait_read,
                    [self = weak_from_this(), weak = std::weak_ptr<entry>(e), fd](std::error_code ec) {
                      // Closed meanwhile (the other came first, forget, or the end): the
                      // entry is gone with it. A wait that failed ends the watch too.
                      auto e = weak.lock();
                      auto s = self.lock();
                      if (e && s) s->readable(e, ec ? 1 : fd);
                    });
    }
    order.push_back(e);
    entries[id] = std::move(e);
    while (entries.size() > max_watched) {
      auto oldest = order.front().lock();
      order.pop_front();
      if (oldest) entries.erase(oldest->id);
    }
    if (order.size() > 2 * entries.size() + 64) {
      std::erase_if(order, [](const std::weak_ptr<entry>& w) { return w.expired(); });
    }
  }

  void readable(const std::shared_ptr<entry>& e, int fd) {
    if (auto it = entries.find(e->id); it != entries.end() && it->second == e) entries.erase(it);
    std::error_code ignored;
    e->out.close(ignored);
    e->err.close(ignored);
    if (fd == 2) report(e->id, e->pid);
  }
};

first_output::first_output(asio::io_context& io, stderr_first report, std::size_t max_watched)
    : impl_(std::make_shared<impl>(io, std::move(report), max_watched)) {}

first_output::~first_output() = default;

void first_output::watch(std::uint64_t id, std::uint64_t pid, int out, int err) { impl_->watch(id, pid, out, err); }

void first_output::forget(std::uint64_t id) { impl_->entries.erase(id); }

std::size_t first_output::watching() const noexcept { return impl_->entries.size(); }

}  // namespace spawnhost
