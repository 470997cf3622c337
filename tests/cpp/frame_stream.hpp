// Reads the helper's frames from one descriptor, as JSON (test_util.hpp's form), for
// the C++ tests that talk to a running helper.
#pragma once
#include <poll.h>
#include <unistd.h>

#include <deque>
#include <vector>
#include <string_view>

#include "protocol/frame_decoder.hpp"
#include "test_util.hpp"

namespace spawnhost::test {

class frame_stream {
 public:
  explicit frame_stream(int fd = -1) : fd_(fd) {}
  // The next message, or null after 5 s or at end of file.
  nlohmann::json next() {
    while (messages_.empty()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 5000) <= 0) return nullptr;
      char buf[65536];
      const ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) return nullptr;
      decoder_.feed(buf, static_cast<std::size_t>(n), [&](std::string_view body) {
        messages_.push_back(to_json(msgpack::unpack(body.data(), body.size()).get()));
      });
    }
    nlohmann::json m = messages_.front();
    messages_.pop_front();
    return m;
  }
  // The messages that one read() of the descriptor completes (after up to 5 s of
  // waiting for it), for tests of how frames are grouped into writes.
  std::vector<nlohmann::json> next_read() {
    std::vector<nlohmann::json> out(messages_.begin(), messages_.end());
    messages_.clear();
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return out;
    char buf[65536];
    const ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return out;
    decoder_.feed(buf, static_cast<std::size_t>(n), [&](std::string_view body) {
      out.push_back(to_json(msgpack::unpack(body.data(), body.size()).get()));
    });
    return out;
  }
  // Skips messages until one with this code arrives.
  nlohmann::json next_of(int code) {
    for (nlohmann::json m = next(); !m.is_null(); m = next()) {
      if (m[0] == code) return m;
    }
    return nullptr;
  }

 private:
  int fd_;
  frame_decoder decoder_;
  std::deque<nlohmann::json> messages_;
};

}  // namespace spawnhost::test
