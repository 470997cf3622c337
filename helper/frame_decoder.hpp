// Splits a byte stream into frames: a 4-byte little-endian body length, then the body.
// Pure (no I/O), so the tests and the fuzzer drive it with any split of the input.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "decode_error.hpp"
#include "protocol_generated.hpp"

namespace spawnhost {

class frame_decoder {
 public:
  explicit frame_decoder(std::size_t max_body = protocol::max_body_bytes) noexcept
      : max_body_(max_body) {}

  // Appends bytes and calls on_frame(std::string_view body) for every complete frame.
  // Returns decode_error::oversized, and accepts nothing more, once a length prefix
  // exceeds the limit: after that the stream cannot be trusted to be in step.
  template <class OnFrame>
  decode_error feed(const char* data, std::size_t size, OnFrame&& on_frame) {
    if (broken_) return decode_error::oversized;
    buffer_.append(data, size);
    std::size_t pos = 0;
    for (;;) {
      if (buffer_.size() - pos < 4) break;
      const std::size_t length = read_length(buffer_.data() + pos);
      if (length > max_body_) {
        broken_ = true;
        buffer_.clear();
        return decode_error::oversized;
      }
      if (buffer_.size() - pos - 4 < length) break;
      on_frame(std::string_view(buffer_.data() + pos + 4, length));
      pos += 4 + length;
    }
    buffer_.erase(0, pos);
    return decode_error::none;
  }

  // True when the stream ended inside a frame (a "truncated" error at end of input).
  bool mid_frame() const noexcept { return !buffer_.empty(); }
  // The length a complete frame would need, for the error message.
  std::size_t buffered() const noexcept { return buffer_.size(); }

  static std::size_t read_length(const char* p) noexcept {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return std::size_t{u[0]} | std::size_t{u[1]} << 8 | std::size_t{u[2]} << 16 |
           std::size_t{u[3]} << 24;
  }

 private:
  std::string buffer_;
  std::size_t max_body_;
  bool broken_ = false;
};

}  // namespace spawnhost
