// POSIX: the event-loop objects the logic files use (child.cpp, channel.cpp, main.cpp),
// behind names shared with helper/windows/os_io.hpp. CMake puts one of the two
// directories on the include path, so the logic files carry no #ifdef.
#pragma once
#include <sys/socket.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <csignal>
#include <optional>
#include <utility>

#include "launch/process.hpp"
#include "posix/sigchld_watch.hpp"

namespace spawnhost {

// Our end of one of a child's pipes (a socketpair here). Output is read on readiness,
// straight into a pooled frame buffer (channel::take_buffer), so an idle child holds none.
class child_pipe : public asio::posix::stream_descriptor {
 public:
  using asio::posix::stream_descriptor::stream_descriptor;

  template <class Handler>
  void async_wait_readable(Handler&& handler) {
    async_wait(wait_read, std::forward<Handler>(handler));
  }

  // One read that never blocks.
  read_outcome read_now(char* data, std::size_t size) noexcept {
    ssize_t n;
    do n = ::read(native_handle(), data, size);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {0, true};
    return {n > 0 ? static_cast<std::size_t>(n) : 0, false};  // 0: EOF, or an error that ends it
  }

  // A forked child's IPC channel: its bytes are Node's framing as they are (the
  // Windows twin takes libuv's frames off and puts them on).
  void use_as_channel() noexcept {}

  // One write that never blocks, whatever the descriptor's own flag says. Our ends are
  // socketpairs; anything else is left to the asynchronous path.
  write_outcome write_now(const char* data, std::size_t size) noexcept {
    return write_now_on(native_handle(), data, size);
  }
  static write_outcome write_now_on(int fd, const char* data, std::size_t size) noexcept {
    ssize_t n;
    do n = ::send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n >= 0) return {static_cast<std::size_t>(n), {}};
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTSOCK) return {};
    return {0, std::error_code(errno, std::system_category())};
  }
};

// Our end of a child's stdin. Writes go out at once while the pipe takes them; it joins
// the event loop (epoll_ctl to add, and to remove at close) only when a write has to
// wait, which most children's stdin never does.
class child_input {
 public:
  child_input(asio::io_context& io, os_handle handle) : io_(io), handle_(std::move(handle)) {}

  write_outcome write_now(const char* data, std::size_t size) noexcept {
    if (pipe_) return pipe_->write_now(data, size);
    return child_pipe::write_now_on(handle_.get(), data, size);
  }
  child_pipe& pipe() {
    if (!pipe_) pipe_.emplace(io_, handle_.release());
    return *pipe_;
  }

 private:
  asio::io_context& io_;
  os_handle handle_;
  std::optional<child_pipe> pipe_;
};

// Becomes ready when the child exits, then reaps it; signals through it. With a pidfd
// the wait is on the descriptor; without one (Linux < 5.3) on SIGCHLD.
class exit_watch {
 public:
  exit_watch(asio::io_context& io, int pid, os_handle handle) : pid_(pid), handle_(io) {
    if (handle) handle_.assign(handle.release());
    else sigchld_ = &asio::use_service<sigchld_watch>(io);
  }

  template <class Handler>
  void async_wait(Handler&& handler) {
    if (sigchld_) sigchld_->when_exited(pid_, std::forward<Handler>(handler));
    else handle_.async_wait(asio::posix::descriptor_base::wait_read, std::forward<Handler>(handler));
  }
  std::error_code reap(exit_status& out) noexcept { return reap_process(pid_, handle(), out); }
  std::error_code signal(int number) noexcept { return signal_process(pid_, handle(), number); }
  void close() {
    if (sigchld_) sigchld_->forget(pid_);
    else handle_.close();
  }

 private:
  int handle() noexcept { return handle_.is_open() ? handle_.native_handle() : -1; }

  int pid_;
  asio::posix::stream_descriptor handle_;
  sigchld_watch* sigchld_ = nullptr;
};

// The helper's own stdin and stdout, the pipes to Node.
using helper_input = asio::posix::stream_descriptor;
using helper_output = asio::posix::stream_descriptor;

// The requests to end that come from outside the protocol (termination_signals.hpp):
// SIGTERM (also our parent-death signal) and SIGHUP.
inline constexpr int termination_signal_numbers[] = {SIGTERM, SIGHUP};

}  // namespace spawnhost
