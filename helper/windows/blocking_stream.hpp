// A handle read or written with blocking calls on a thread of its own, completing on the
// io_context like an Asio stream (AsyncReadStream / AsyncWriteStream). For the helper's
// stdin and stdout on Windows, which under wine are Linux pipes or sockets, and for the
// sync channel's named pipe (sync_pipe.cpp), whose streams wait for Node first.
#pragma once
#include <asio/buffer.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>

namespace spawnhost {

class blocking_stream {
 public:
  using executor_type = asio::io_context::executor_type;
  using completion = std::function<void(std::error_code, std::size_t)>;

  // Work done once, by the first read, on a pipe that is not ready for I/O until then:
  // the sync pipe waits there for Node to connect. Its error fails every read and
  // write. What is written before is kept and sent once it succeeded (as a socket's
  // buffer would hold it), so a write never waits for Node. The handle is overlapped:
  // each call waits on an event (a synchronous handle holds a write behind a read).
  struct first_io {
    std::function<std::error_code()> prepare;
    std::once_flag once;
    std::mutex mutex;
    std::error_code result;
    bool ready = false;
    std::string early;
  };
  // The next blocking_stream made on `crt_fd` passes through `gate` first.
  static void hold_first_io(int crt_fd, std::shared_ptr<first_io> gate);

  // `crt_fd`: 0 for stdin, 1 for stdout (the C runtime's descriptors), or one given to
  // hold_first_io.
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
