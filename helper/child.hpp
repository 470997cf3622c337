// One running child on the event loop: its piped stdio, read credit, timeout, and exit.
// Events go up to its owner (the session) as frames; it never calls the channel itself.
#pragma once
#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "messages.hpp"
#include "process.hpp"

namespace spawnhost {

class child_owner {
 public:
  virtual void send(std::string frame) = 0;
  // True while Node has too much unread output queued; the child then waits for
  // `resume` before reading more (see channel::high_mark).
  virtual bool output_congested() = 0;
  virtual void when_output_room(std::function<void()> resume) = 0;
  // Scratch space for one read: reads go straight from the pipe into a frame, so idle
  // children hold no buffers (thousands of children cost kilobytes each).
  virtual std::string& read_buffer() = 0;
  virtual void child_exited(std::uint64_t id) = 0;  // reaped
  virtual void child_closed(std::uint64_t id) = 0;  // reaped and all output at EOF
  virtual ~child_owner() = default;
};

class child : public std::enable_shared_from_this<child> {
 public:
  child(asio::io_context& io, child_owner& owner, std::uint64_t id, launched_process&& process,
        const spawn_options& options, int kill_signal);

  void start();                       // arm exit watch, output reads and timeout
  void write(std::string bytes);      // queue bytes for stdin; acknowledged with `written`
  void end_input();                   // close stdin once queued bytes are written
  void add_credit(std::uint32_t fd, std::uint64_t bytes);
  void close_output(std::uint32_t fd);  // the reader is gone; also used at EOF
  std::error_code kill(int signal);   // no-op once reaped
  void stop_watching();               // forget a detached child at shutdown

  std::uint64_t id() const noexcept { return id_; }
  int pid() const noexcept { return pid_; }
  bool exited() const noexcept { return exited_; }
  bool detached() const noexcept { return detached_; }
  int kill_signal() const noexcept { return kill_signal_; }

 private:
  struct output {
    std::optional<asio::posix::stream_descriptor> pipe;
    std::uint64_t credit = 0;
    std::uint64_t total = 0;
    bool waiting = false;  // a readiness wait or an output-room wait is pending
  };

  void watch_exit();
  void on_exit();
  void read_when_ready(std::uint32_t fd);
  void read_now(std::uint32_t fd);
  void stop_relaying();  // execFile semantics after a timeout or max_buffer kill
  void write_next();
  void close_input();
  void maybe_closed();

  asio::io_context& io_;
  child_owner& owner_;
  const std::uint64_t id_;
  const int pid_;
  asio::posix::stream_descriptor exit_watch_;
  std::optional<asio::posix::stream_descriptor> input_;
  output outputs_[2];
  asio::steady_timer timeout_;
  std::deque<std::string> pending_input_;
  bool writing_ = false;
  bool input_ending_ = false;
  bool exited_ = false;
  bool closed_ = false;
  std::uint32_t flags_ = 0;
  const bool unlimited_credit_;
  const bool detached_;
  const std::optional<std::uint64_t> max_buffer_;
  const std::uint64_t timeout_ms_;
  const int kill_signal_;
};

}  // namespace spawnhost
