// Windows: the event-loop objects the logic files use, behind the names of
// helper/posix/os_io.hpp. Children's pipes are overlapped named pipes on the io_context's
// completion port; the helper's own stdin/stdout use blocking threads (blocking_stream.hpp).
#pragma once
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/windows/object_handle.hpp>
#include <asio/windows/overlapped_ptr.hpp>
#include <asio/windows/stream_handle.hpp>
#include <asio/write.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "windows/blocking_stream.hpp"
#include "windows/ipc_frames.hpp"
#include "launch/process.hpp"
#include "base/test_switches.hpp"

namespace spawnhost {

// Our (overlapped) end of one of a child's pipes. Like libuv, output is awaited with a
// zero-byte read, which completes when data or the end arrives, and then read without
// waiting into a pooled frame buffer (channel::take_buffer): an idle child holds none.
class child_pipe : public asio::windows::stream_handle {
 public:
  using asio::windows::stream_handle::stream_handle;

  template <class Handler>
  void async_wait_readable(Handler&& handler) {
    asio::windows::overlapped_ptr op(get_executor(), [h = std::forward<Handler>(handler)](std::error_code ec, std::size_t) mutable {
      h(ec);
    });
    start_zero_read(op);
  }

  // One read that never blocks: only what PeekNamedPipe says is there. On a channel,
  // the data of the libuv frames read (nothing yet, when they were only heads).
  read_outcome read_now(char* data, std::size_t size) noexcept;

  // Writes go through overlapped I/O only: nothing is written here.
  write_outcome write_now(const char*, std::size_t) noexcept { return {}; }

  // This pipe is a forked child's IPC channel: it speaks libuv's Windows IPC framing
  // (ipc_frames.hpp), which reads take off and writes put on, so the bytes that cross
  // it to and from Node are Node's framing alone, as on POSIX.
  void use_as_channel() { deframer_.emplace(); }

  // asio::async_write's step. On a channel, each step is one whole frame: its head and
  // the data of the first buffer, reported as that data's size once all are written.
  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (!deframer_) return asio::windows::stream_handle::async_write_some(buffers, std::forward<Handler>(handler));
    const asio::const_buffer first = *asio::buffer_sequence_begin(buffers);
    const std::size_t length = std::min<std::size_t>(first.size(), max_frame_data);
    auto frame = std::make_shared<std::string>(windows::ipc_head_size + length, '\0');
    unsigned char head[windows::ipc_head_size];
    windows::ipc_frame_head(head, static_cast<std::uint32_t>(length));
    frame->replace(0, windows::ipc_head_size, reinterpret_cast<const char*>(head), windows::ipc_head_size);
    frame->replace(windows::ipc_head_size, length, static_cast<const char*>(first.data()), length);
    asio::async_write(static_cast<asio::windows::stream_handle&>(*this), asio::buffer(*frame),
                      [frame, length, h = std::forward<Handler>(handler)](std::error_code ec, std::size_t) mutable {
                        h(ec, ec ? 0 : length);
                      });
  }

 private:
  static constexpr std::size_t max_frame_data = 1024 * 1024;
  void start_zero_read(asio::windows::overlapped_ptr& op);
  std::optional<windows::ipc_deframer> deframer_;
};

// Our end of a child's stdin, registered with the completion port on first use (the
// POSIX twin writes at once and registers only when a write has to wait).
class child_input {
 public:
  child_input(asio::io_context& io, os_handle handle) : io_(io), handle_(std::move(handle)) {}
  write_outcome write_now(const char*, std::size_t) noexcept { return {}; }
  child_pipe& pipe() {
    if (!pipe_) pipe_.emplace(io_, handle_.release());
    return *pipe_;
  }

 private:
  asio::io_context& io_;
  os_handle handle_;
  std::optional<child_pipe> pipe_;
};

// The signal a process ended by signal_process(number) is reported with (process.cpp).
int terminated_signal(int number) noexcept;

// Signalled when the child exits (the process handle). Windows has no signals: as in
// libuv, a process we terminated is reported with the signal we were asked to send,
// or SIGKILL for those libuv does not report (terminated_signal).
class exit_watch {
 public:
  exit_watch(asio::io_context& io, int pid, os_handle handle) : pid_(pid), handle_(io, handle.release()), delay_(io) {}

  template <class Handler>
  void async_wait(Handler&& handler) {
    const auto delay = test_exit_delay();
    if (delay.count() == 0) return handle_.async_wait(std::forward<Handler>(handler));
    // Tests only (SPAWNHOST_HELPER_EXIT_DELAY_MS, test builds): the exit is seen that much later, so a
    // kill can come between a child's own end and its reaping, as it may under load.
    handle_.async_wait([this, delay, handler = std::forward<Handler>(handler)](std::error_code ec) mutable {
      if (ec) return handler(ec);
      delay_.expires_after(delay);
      delay_.async_wait([handler = std::move(handler)](std::error_code waited) mutable { handler(waited); });
    });
  }
  std::error_code reap(exit_status& out) noexcept {
    const std::error_code ec = reap_process(pid_, handle_.native_handle(), out);
    if (!ec && terminated_with_) {
      out.code.reset();
      out.signal = terminated_with_;
    }
    return ec;
  }
  std::error_code signal(int number) noexcept {
    const std::error_code ec = signal_process(pid_, handle_.native_handle(), number);
    if (!ec && number != 0) terminated_with_ = terminated_signal(number);
    return ec;
  }
  void close() {
    handle_.close();
    delay_.cancel();
  }

 private:
  static std::chrono::milliseconds test_exit_delay() noexcept {
    const char* ms = test_switch("SPAWNHOST_HELPER_EXIT_DELAY_MS");
    return std::chrono::milliseconds(ms ? std::clamp(std::strtol(ms, nullptr, 10), 0L, 60000L) : 0L);
  }

  int pid_;
  asio::windows::object_handle handle_;
  asio::steady_timer delay_;
  int terminated_with_ = 0;
};

// The helper's own stdin and stdout. Under wine they are whatever Linux Node handed
// wine (pipes or sockets), where overlapped I/O is unreliable: a thread each, blocking.
using helper_input = blocking_stream;
using helper_output = blocking_stream;

// The requests to end that come from outside the protocol (termination_signals.hpp):
// Ctrl-C / Ctrl-Break and SIGTERM as the C runtime reports them.
inline constexpr int termination_signal_numbers[] = {SIGINT, SIGTERM, SIGBREAK};

}  // namespace spawnhost
