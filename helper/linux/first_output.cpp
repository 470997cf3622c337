// POSIX: see first_output.hpp.
#include "posix/first_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <utility>

namespace spawnhost {

struct first_output::entry {
  entry(asio::io_context& io, std::uint64_t id, std::uint64_t pid, int out, int err)
      : id(id), pid(pid), out(io, out), err(io, err) {}
  std::uint64_t id, pid;
  // Assigned descriptors: asio removes them from its epoll set as it closes them
  // (they are copies; closing alone would leave the description registered).
  asio::posix::stream_descriptor out, err;
};

first_output::first_output(asio::io_context& io, stderr_first report, std::size_t max_watched)
    : io_(io), report_(std::move(report)), max_watched_(max_watched) {}

first_output::~first_output() = default;

namespace {
int copy_of(int fd) {
  int copy;
  do copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  while (copy < 0 && errno == EINTR);
  return copy;
}
}  // namespace

void first_output::watch(std::uint64_t id, std::uint64_t pid, int out, int err) {
  const int out_copy = copy_of(out);
  const int err_copy = out_copy < 0 ? -1 : copy_of(err);
  if (err_copy < 0) {
    if (out_copy >= 0) ::close(out_copy);
    return;
  }
  auto e = std::make_shared<entry>(io_, id, pid, out_copy, err_copy);
  // stdout first: two outputs readable when they are registered (a child faster than
  // this) are reported in that order, which is Node's default, so nothing is said.
  for (auto* d : {&e->out, &e->err}) {
    const int fd = d == &e->out ? 1 : 2;
    d->async_wait(asio::posix::stream_descriptor::wait_read, [this, weak = std::weak_ptr<entry>(e), fd](std::error_code ec) {
      // Closed meanwhile (the other came first, forget, or this object's end): the
      // entry is gone with it, and `this` is not touched. A wait that failed ends the
      // watch too, saying nothing.
      auto e = weak.lock();
      if (!e) return;
      on_readable(e, ec ? 1 : fd);
    });
  }
  order_.push_back(e);
  entries_[id] = std::move(e);
  // The oldest launches watched give way: their order mattered only to a Node thread
  // that has not read them yet, and one that read first took the edge the helper waits
  // for (epoll drops an edge whose bytes were read before it was reported).
  while (entries_.size() > max_watched_) {
    auto oldest = order_.front().lock();
    order_.pop_front();
    if (oldest) forget(oldest->id);
  }
  // Launches already gone leave expired entries here: dropped once they outnumber the rest.
  if (order_.size() > 2 * entries_.size() + 64) {
    std::erase_if(order_, [](const std::weak_ptr<entry>& w) { return w.expired(); });
  }
}

void first_output::on_readable(const std::shared_ptr<entry>& e, int fd) {
  if (auto it = entries_.find(e->id); it != entries_.end() && it->second == e) entries_.erase(it);
  // Two that became readable before this loop looked come in the order they did
  // (epoll's ready list, which asio's handlers follow); a child's exit ends stdout
  // before stderr (the kernel closes descriptors in order), so it says nothing.
  std::error_code ignored;
  e->out.close(ignored);
  e->err.close(ignored);
  if (fd == 2) report_(e->id, e->pid);
}

void first_output::forget(std::uint64_t id) { entries_.erase(id); }

std::size_t first_output::watching() const noexcept { return entries_.size(); }

}  // namespace spawnhost
