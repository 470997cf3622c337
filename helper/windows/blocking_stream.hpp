// A handle read or written with blocking calls on a thread of its own, completing on the
// io_context like an Asio stream (AsyncReadStream / AsyncWriteStream). For the helper's
// stdin and stdout on Windows, which under wine are Linux pipes or sockets.
#pragma once
#include <asio/buffer.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>
#include <system_error>

namespace spawnhost {

class blocking_stream {
 public:
  using executor_type = asio::io_context::executor_type;
  using completion = std::function<void(std::error_code, std::size_t)>;

  // `crt_fd`: 0 for stdin, 1 for stdout (the C runtime's descriptors).
  blocking_stream(asio::io_context& io, int crt_fd);
  ~blocking_stream();
  blocking_stream(const blocking_stream&) = delete;
  blocking_stream& operator=(const blocking_stream&) = delete;

  executor_type get_executor() noexcept { return io_.get_executor(); }

  template <class Buffers, class Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    const asio::mutable_buffer b = first_buffer(buffers);
    start(false, b.data(), b.size(), wrap(std::forward<Handler>(handler)));
  }

  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    // Gathered into one block: one WriteFile per batch of frames.
    std::string block(asio::buffer_size(buffers), '\0');
    asio::buffer_copy(asio::buffer(block), buffers);
    start_write(std::move(block), wrap(std::forward<Handler>(handler)));
  }

 public:
  struct shared_state;  // with the thread that serves this stream (blocking_stream.cpp)

 private:
  template <class Buffers>
  static asio::mutable_buffer first_buffer(const Buffers& buffers) {
    for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers); ++it) {
      if (asio::mutable_buffer(*it).size() > 0) return *it;
    }
    return {};
  }
  // Asio handlers may be move-only; a shared_ptr makes them fit a std::function.
  template <class Handler>
  static completion wrap(Handler&& handler) {
    auto h = std::make_shared<std::decay_t<Handler>>(std::forward<Handler>(handler));
    return [h](std::error_code ec, std::size_t n) { (*h)(ec, n); };
  }
  void start(bool write, void* data, std::size_t size, completion done);
  void start_write(std::string block, completion done);

  asio::io_context& io_;
  std::shared_ptr<shared_state> state_;
};

}  // namespace spawnhost
