// Splits a byte stream into frames: a 4-byte little-endian body length, then the body.
// Pure (no I/O), so the tests and the fuzzer drive it with any split of the input.
//
// The channel reads straight into the decoder's buffer (prepare, then commit): a 1 GiB
// stdin stream then crosses the helper's memory once, from the read into Node's pipe to
// the write into the child's, instead of also being copied from a read buffer.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "protocol/decode_error.hpp"
#include "protocol/protocol_generated.hpp"

namespace spawnhost {

class frame_decoder {
 public:
  explicit frame_decoder(std::size_t max_body = protocol::max_body_bytes) noexcept
      : max_body_(max_body) {}

  // Room for the rest of the frame in progress once its length is known (so its body
  // lands in one place and is never moved), else for at least `want` more bytes. Valid
  // until the next prepare or feed.
  std::pair<char*, std::size_t> prepare(std::size_t want) {
    std::size_t need = want;
    if (end_ - begin_ >= 4) {
      const std::size_t length = read_length(buf_.get() + begin_);
      if (length <= max_body_) need = 4 + length - (end_ - begin_);
    }
    if (capacity_ - end_ < need) make_room(need);
    return {buf_.get() + end_, capacity_ - end_};
  }

  // Accepts `size` bytes written at prepare()'s pointer and calls
  // on_frame(std::string_view body) for every complete frame; the view is valid during
  // the call only. Returns decode_error::oversized, and accepts nothing more, once a
  // length prefix exceeds the limit: after that the stream cannot be trusted.
  template <class OnFrame>
  decode_error commit(std::size_t size, OnFrame&& on_frame) {
    if (broken_) return decode_error::oversized;
    end_ += size;
    while (end_ - begin_ >= 4) {
      const std::size_t length = read_length(buf_.get() + begin_);
      if (length > max_body_) {
        broken_ = true;
        begin_ = end_ = 0;
        return decode_error::oversized;
      }
      if (end_ - begin_ - 4 < length) break;
      const std::size_t body = begin_ + 4;
      begin_ = body + length;
      on_frame(std::string_view(buf_.get() + body, length));
    }
    if (begin_ == end_) begin_ = end_ = 0;
    return decode_error::none;
  }

  // Appends bytes from elsewhere (tests, vectors): prepare + copy + commit.
  template <class OnFrame>
  decode_error feed(const char* data, std::size_t size, OnFrame&& on_frame) {
    if (broken_) return decode_error::oversized;
    if (prepare(size).second < size) make_room(size);
    if (size > 0) std::memcpy(buf_.get() + end_, data, size);
    return commit(size, std::forward<OnFrame>(on_frame));
  }

  // True when the stream ended inside a frame (a "truncated" error at end of input).
  bool mid_frame() const noexcept { return end_ != begin_; }
  // The length a complete frame would need, for the error message.
  std::size_t buffered() const noexcept { return end_ - begin_; }

  static std::size_t read_length(const char* p) noexcept {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return std::size_t{u[0]} | std::size_t{u[1]} << 8 | std::size_t{u[2]} << 16 |
           std::size_t{u[3]} << 24;
  }

 private:
  // Moves the unread bytes to the front, growing the buffer if that is not enough.
  // Uninitialised storage: filling it first would cost as much as the copy we avoid.
  void make_room(std::size_t need) {
    const std::size_t held = end_ - begin_;
    if (capacity_ - held >= need) {
      std::memmove(buf_.get(), buf_.get() + begin_, held);
    } else {
      // Doubling small buffers avoids regrowth; a large frame gets what it needs.
      const std::size_t capacity = std::max(held + need, std::min(capacity_ * 2, std::size_t{1} << 20));
      std::unique_ptr<char[]> bigger(new char[capacity]);
      if (held) std::memcpy(bigger.get(), buf_.get() + begin_, held);
      buf_ = std::move(bigger);
      capacity_ = capacity;
    }
    begin_ = 0;
    end_ = held;
  }

  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // the first byte not yet part of a delivered frame
  std::size_t end_ = 0;    // the end of what was committed
  std::size_t max_body_;
  bool broken_ = false;
};

}  // namespace spawnhost
