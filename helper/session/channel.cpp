#include "session/channel.hpp"

#include <asio/post.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>

#include "session/write_whole.hpp"

namespace spawnhost {

channel::channel(asio::io_context& io, int in_fd, int out_fd, handler& h)
    : io_(io), in_(io, in_fd), out_(io, out_fd), handler_(h) {}

void channel::start_reading() { read_more(); }

void channel::read_more() {
  // Straight into the decoder's buffer: one copy fewer for every byte Node sends.
  const auto room = decoder_.prepare(read_size);
  in_.async_read_some(asio::buffer(room.first, room.second), [this](std::error_code ec, std::size_t n) {
    if (!reading_) return;
    if (ec) {
      reading_ = false;
      if (decoder_.mid_frame()) {
        handler_.on_input_end(decode_error::truncated,
                              "input ended inside a frame (" + std::to_string(decoder_.buffered()) + " bytes buffered)");
      } else {
        handler_.on_input_end(decode_error::none, {});
      }
      return;
    }
    const decode_error e = decoder_.commit(n, [this](std::string_view body) {
      if (reading_) handler_.on_frame(body);
    });
    if (e == decode_error::oversized) {
      reading_ = false;
      handler_.on_input_end(e, "a frame exceeds the " + std::to_string(protocol::max_body_bytes) + "-byte limit");
      return;
    }
    if (reading_) read_more();
  });
}

void channel::send(std::string frame) {
  const std::size_t size = frame.size();
  enqueue({std::move(frame), 0, size, false});
}

void channel::send_in_buffer(std::string buffer, std::size_t begin, std::size_t end) {
  enqueue({std::move(buffer), begin, end, true});
}

void channel::enqueue(queued_frame frame) {
  if (write_failed_) {
    if (frame.pooled) return_buffer(std::move(frame.bytes));
    return;
  }
  queued_ += frame.counted();
  queue_.push_back(std::move(frame));
  if (writing_ || flush_posted_) return;
  // Written once the handlers that are ready now have run: the frames this turn of
  // the loop produces (the exits and output of children that ended together) go in
  // one writev, and Node wakes once for them. Nothing waits for company: a lone frame
  // goes out as soon as this turn ends, with no timer.
  flush_posted_ = true;
  asio::post(io_, [this] {
    flush_posted_ = false;
    if (!writing_) write_more();
  });
}

std::string channel::take_buffer() {
  if (spare_buffers_.empty()) return std::string(buffer_size, '\0');
  std::string buffer = std::move(spare_buffers_.back());
  spare_buffers_.pop_back();
  return buffer;
}

void channel::return_buffer(std::string buffer) {
  // A few spares cover a fast stream's frames in flight; more would only hold memory.
  if (spare_buffers_.size() < 8) spare_buffers_.push_back(std::move(buffer));
}

void channel::write_more() {
  if (queue_.empty() || write_failed_) {
    writing_ = false;
    if (on_flushed_) std::exchange(on_flushed_, nullptr)();
    return;
  }
  writing_ = true;
  // Gather what is queued into one writev: many small frames cost one system call.
  // Small frames are copied together into one piece: Asio's writev takes 16 pieces at
  // most, and one piece per frame split a turn's frames into several writes (and so,
  // often, several wake-ups of Node).
  in_flight_.clear();
  batch_.clear();
  struct piece {
    const char* bytes;  // null: batch_ from `offset`
    std::size_t offset, size;
  };
  std::array<piece, max_pieces> pieces;
  std::size_t count = 0, frames = 0;
  for (const auto& f : queue_) {
    if (frames == max_frames_per_write) break;
    const char* bytes = f.bytes.data() + f.begin;
    const std::size_t size = f.end - f.begin;
    if (size <= max_copied_frame) {
      if (batch_.size() + size > max_batch) break;
      if (count == 0 || pieces[count - 1].bytes) {
        if (count == max_pieces) break;
        pieces[count++] = {nullptr, batch_.size(), 0};
      }
      batch_.append(bytes, size);
      pieces[count - 1].size += size;
    } else {
      if (count == max_pieces) break;
      pieces[count++] = {bytes, 0, size};
    }
    ++frames;
  }
  for (std::size_t i = 0; i < count; ++i) {
    in_flight_.emplace_back(pieces[i].bytes ? pieces[i].bytes : batch_.data() + pieces[i].offset, pieces[i].size);
  }
  asio::async_write(out_, in_flight_, write_whole, [this, frames](std::error_code ec, std::size_t) {
    if (ec) {
      // Node is gone or stopped reading for good: nothing more can be said.
      write_failed_ = true;
      queue_.clear();
      queued_ = 0;
      spare_buffers_.clear();
      writing_ = false;
      if (on_flushed_) std::exchange(on_flushed_, nullptr)();
      handler_.on_input_end(decode_error::none, "output closed");
      return;
    }
    for (std::size_t i = 0; i < frames; ++i) {
      queued_frame& done = queue_.front();
      queued_ -= done.counted();
      if (done.pooled) return_buffer(std::move(done.bytes));
      queue_.pop_front();
    }
    if (room_wanted_ && queued_ < low_mark) {
      room_wanted_ = false;
      handler_.on_output_room();
    }
    write_more();
  });
}

void channel::when_flushed(std::function<void()> done) {
  if ((!writing_ && queue_.empty()) || write_failed_) {
    done();
    return;
  }
  on_flushed_ = std::move(done);
}

}  // namespace spawnhost
