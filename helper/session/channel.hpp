// The helper's end of the pipe to Node: frames in from stdin, frames out to stdout
// through one writer (frames never interleave). It knows nothing of what the frames
// mean; it reports up to its handler.
#pragma once
#include <asio/io_context.hpp>

#include <array>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/frame_decoder.hpp"
#include "protocol/messages.hpp"
#include "os_io.hpp"

namespace spawnhost {

class channel {
 public:
  struct handler {
    virtual void on_frame(std::string_view body) = 0;
    // The input cannot go on: `error` is oversized, truncated (EOF mid-frame) or none (clean EOF).
    virtual void on_input_end(decode_error error, std::string detail) = 0;
    virtual void on_output_room() = 0;  // the backlog fell below the low mark
    virtual ~handler() = default;
  };

  // Above this many queued output bytes, children's output is not read until the
  // backlog falls below the low mark: Node's reading speed bounds the helper's memory.
  static constexpr std::size_t high_mark = 4 << 20;
  static constexpr std::size_t low_mark = 1 << 20;

  // A read buffer: children's output is read straight into one, behind room for the
  // frame head (encode::data_head_before), and written to Node from there.
  static constexpr std::size_t buffer_size = encode::max_data_head + protocol::max_data_chunk;
  // The least room offered to each read of Node's frames: a data frame's worth.
  static constexpr std::size_t read_size = protocol::max_data_chunk;

  channel(asio::io_context& io, int in_fd, int out_fd, handler& h);
  void start_reading();
  void send(std::string frame);
  // Sends the frame in bytes [begin, end) of `buffer` (from take_buffer), which goes
  // back to the pool once written. It counts as a whole buffer against high_mark.
  void send_in_buffer(std::string buffer, std::size_t begin, std::size_t end);
  // A buffer of buffer_size bytes, reused: a fast stream costs no allocation and no
  // page faults per frame.
  std::string take_buffer();
  void return_buffer(std::string buffer);
  bool congested() const noexcept { return queued_ > high_mark; }
  // Asks for one on_output_room() call once the backlog has fallen below the low mark.
  void want_room() noexcept { room_wanted_ = true; }
  // Calls `done` once everything queued has been written (or writing has failed).
  void when_flushed(std::function<void()> done);

 private:
  void read_more();
  void write_more();

  struct queued_frame {
    std::string bytes;
    std::size_t begin = 0;
    std::size_t end = 0;
    bool pooled = false;  // a read buffer, returned to spare_buffers_ once written
    std::size_t counted() const noexcept { return pooled ? bytes.size() : end - begin; }
  };
  void enqueue(queued_frame frame);

  asio::io_context& io_;
  helper_input in_;
  helper_output out_;
  handler& handler_;
  frame_decoder decoder_;
  std::deque<queued_frame> queue_;
  std::vector<std::string> spare_buffers_;
  std::vector<asio::const_buffer> in_flight_;
  std::string batch_;  // the small frames of the write in flight, copied together
  static constexpr std::size_t max_pieces = 16;
  static constexpr std::size_t max_frames_per_write = 1024;
  static constexpr std::size_t max_copied_frame = 16 * 1024;
  static constexpr std::size_t max_batch = 256 * 1024;
  std::size_t queued_ = 0;
  bool writing_ = false;
  bool flush_posted_ = false;  // a write of what is queued runs at the end of this turn
  bool write_failed_ = false;
  bool reading_ = true;
  bool room_wanted_ = false;
  std::function<void()> on_flushed_;
};

}  // namespace spawnhost
