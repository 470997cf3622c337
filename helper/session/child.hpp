// One running child on the event loop: its piped stdio, read credit, deadline, and exit.
// Events go up to its owner (the session) as frames; it never calls the channel itself.
#pragma once
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/messages.hpp"
#include "os_io.hpp"
#include "launch/process.hpp"
#include "session/deadline.hpp"

namespace spawnhost {

class child_owner {
 public:
  virtual void send(std::string frame) = 0;
  // True while Node has too much unread output queued; the child then waits for
  // `resume` before reading more (see channel::high_mark).
  virtual bool output_congested() = 0;
  virtual void when_output_room(std::function<void()> resume) = 0;
  // Buffers for one read (channel::buffer_size bytes), shared by all children, so an
  // idle child holds none (thousands of children cost kilobytes each).
  virtual std::string take_buffer() = 0;
  virtual void return_buffer(std::string buffer) = 0;
  // Sends the frame in bytes [begin, end) of a buffer from take_buffer.
  virtual void send_in_buffer(std::string buffer, std::size_t begin, std::size_t end) = 0;
  virtual void child_exited(std::uint64_t id) = 0;  // reaped
  virtual void child_closed(std::uint64_t id) = 0;  // reaped and all output at EOF
  virtual ~child_owner() = default;
};

class child : public std::enable_shared_from_this<child> {
 public:
  // `grace`: how long a child the helper itself ends (deadline, max_buffer) gets after
  // its kill signal before SIGKILL.
  child(asio::io_context& io, child_owner& owner, std::uint64_t id, launched_process&& process,
        const spawn_options& options, int kill_signal, std::chrono::milliseconds grace);

  void start();                       // arm exit watch, output reads and deadline
  // Bytes for stdin, acknowledged with `written`; for the IPC channel, with `sent`.
  // Written at once as far as the pipe takes them; only the rest is copied and queued.
  void write(std::string_view bytes);
  void end_input();                   // close stdin once queued bytes are written
  // quiet: Node needs no prompt `sent` for these bytes (no callback waits on them); it
  // is held back until a prompt one, quiet_ack_limit bytes, or the channel's end or error.
  void send(std::string_view bytes, bool quiet = false);
  void add_credit(std::uint32_t fd, std::uint64_t bytes);
  // The reader of stream fd (1, 2, or 3 = the channel) is gone: close our end. The
  // channel is closed once queued sends are written, as a disconnect.
  void close_stream(std::uint32_t fd);
  std::error_code kill(int signal);   // no-op once reaped
  void stop_watching();               // forget a detached child at shutdown
  // A launch with the `result` option: the timings its result frame carries.
  void set_launch_timings(std::uint64_t create_us, std::uint64_t queued_us) noexcept {
    create_us_ = create_us;
    queued_us_ = queued_us;
  }

  std::uint64_t id() const noexcept { return id_; }
  int pid() const noexcept { return pid_; }
  bool exited() const noexcept { return exited_; }
  bool detached() const noexcept { return detached_; }
  int kill_signal() const noexcept { return kill_signal_; }
  // A terminal child's master (pty/terminal.hpp), for resize; else invalid.
  const os_handle& terminal() const noexcept { return terminal_; }

 private:
  // Something the child writes: stdout (fd 1), stderr (2) or the IPC channel (3).
  struct stream {
    std::optional<child_pipe> pipe;
    std::uint64_t credit = 0;
    std::uint64_t total = 0;
    bool waiting = false;  // a readiness wait or an output-room wait is pending
    // With the `result` option: the bytes held for the result frame, until the stream
    // passes result_hold_ and goes out as data frames (streamed).
    std::string held;
    bool streamed = false;
  };
  // Bytes for the child: stdin, or the channel (which shares the channel stream's descriptor).
  struct writer {
    std::deque<std::string> pending;
    std::uint64_t unacknowledged = 0;  // written, acknowledgement not yet sent
    bool writing = false;
    bool closing = false;  // close once pending bytes are written
  };
  enum class sink { to_stdin, to_channel };

  void watch_exit();
  void on_exit();
  void drain_outputs();  // at exit: what the streams hold (and the caps) go before `exit`
  stream& stream_of(std::uint32_t fd) { return streams_[fd - 1]; }
  const stream& stream_of(std::uint32_t fd) const { return streams_[fd - 1]; }
  void read_when_ready(std::uint32_t fd);
  void read_now(std::uint32_t fd);
  enum class read_result { more, would_block, closed };
  // Reads at least this large are sent from the read buffer itself; smaller ones are
  // copied, which is cheap for them and keeps the pooled buffer free.
  static constexpr std::size_t min_zero_copy_read = 16 * 1024;
  // What libuv reads from a pipe at once (its 64 KiB buffer), Node's chunk.
  static constexpr std::size_t node_read_size = 64 * 1024;
  read_result read_chunk(std::uint32_t fd);  // one read of stream fd, relayed
  void close_now(std::uint32_t fd);
  void stop_relaying();  // execFile semantics after a deadline or max_buffer kill
  // Past max_output: spawnSync's Kill(), the kill signal and both outputs' end. The
  // deadline still holds, as a bound on a child that outlives both (the call reports
  // max_output, Node's first error, whichever came later).
  void end_for_output_cap();
  // The helper's own kill (deadline, max_buffer): the kill signal, then SIGKILL after the
  // grace period for a child that ignores it. Node would wait for such a child forever.
  void end_for_limit();
  writer& writer_of(sink s) { return s == sink::to_stdin ? stdin_writer_ : channel_writer_; }
  bool can_write(sink s) const { return s == sink::to_stdin ? input_.has_value() : stream_of(3).pipe.has_value(); }
  write_outcome write_now(sink s, const char* data, std::size_t size);
  child_pipe& async_target(sink s) { return s == sink::to_stdin ? input_->pipe() : *stream_of(3).pipe; }
  // Quiet acknowledgements held back past this many bytes go out: Node's send window
  // (js/src/launch/ipc.js SEND_HIGH_WATER, 128 KiB) must keep moving.
  static constexpr std::uint64_t quiet_ack_limit = 32 * 1024;
  void queue_write(sink s, std::string_view bytes, bool quiet = false);
  void flush_acknowledgement(sink s);
  void write_next(sink s);
  void acknowledge(sink s, std::uint64_t bytes);
  void write_failed(sink s, std::error_code ec);
  void close_writer(sink s);
  void maybe_closed();
  // With the `result` option: keeps a chunk of output fd for the result frame; false
  // when it is to be sent as a data frame (what was held goes first).
  bool hold(std::uint32_t fd, const char* bytes, std::size_t size);
  void send_result();

  asio::io_context& io_;
  child_owner& owner_;
  const std::uint64_t id_;
  const int pid_;
  exit_watch exit_watch_;
  os_handle terminal_;
  std::optional<child_input> input_;
  stream streams_[3];
  deadline deadline_;
  asio::steady_timer escalation_;
  const std::chrono::milliseconds grace_;
  writer stdin_writer_;
  writer channel_writer_;
  bool exited_ = false;
  bool closed_ = false;
  std::uint32_t flags_ = 0;
  const bool unlimited_credit_;
  const bool detached_;
  const std::optional<std::uint64_t> max_buffer_;
  // A blocking call's maxBuffer: stdout and stderr together, counted as they are read,
  // so the kill comes as soon as Node's own spawnSync would send it.
  const std::optional<std::uint64_t> max_output_;
  std::uint64_t output_total_ = 0;
  const int kill_signal_;
  const std::optional<std::uint64_t> result_hold_;  // the `result` option, capped
  exit_status status_;
  bool result_sent_ = false;
  std::uint64_t create_us_ = 0;
  std::uint64_t queued_us_ = 0;
  launch_pool::pin launch_thread_;  // released at exit (see launched_process)
};

}  // namespace spawnhost
