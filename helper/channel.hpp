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

#include "frame_decoder.hpp"
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

  channel(asio::io_context& io, int in_fd, int out_fd, handler& h);
  void start_reading();
  void send(std::string frame);
  bool congested() const noexcept { return queued_ > high_mark; }
  // Asks for one on_output_room() call once the backlog has fallen below the low mark.
  void want_room() noexcept { room_wanted_ = true; }
  // Calls `done` once everything queued has been written (or writing has failed).
  void when_flushed(std::function<void()> done);

 private:
  void read_more();
  void write_more();

  helper_input in_;
  helper_output out_;
  handler& handler_;
  frame_decoder decoder_;
  std::array<char, protocol::max_data_chunk> read_buffer_{};  // a whole data frame per read
  std::deque<std::string> queue_;
  std::vector<asio::const_buffer> in_flight_;
  std::size_t queued_ = 0;
  bool writing_ = false;
  bool write_failed_ = false;
  bool reading_ = true;
  bool room_wanted_ = false;
  std::function<void()> on_flushed_;
};

}  // namespace spawnhost
