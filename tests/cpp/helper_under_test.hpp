// The helper binary started for a test as Node starts it: the protocol on its stdin and
// stdout, stderr ignored, and a socketpair as its fd 3 (for --sync-fd 3 or --ipc-fd 3),
// whose other end is the returned process's `channel`.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "launch/process.hpp"
#include "test_util.hpp"

namespace spawnhost::test {

inline launched_process start_helper_with_fd3(std::vector<std::string> args) {
  spawn_request r;
  r.id = 1;
  r.file = SPAWNHOST_HELPER_PATH;
  r.args = std::move(args);
  r.options.stdio = {protocol::stdio_kind::pipe, protocol::stdio_kind::pipe, protocol::stdio_kind::ignore};
  r.options.ipc = true;
  launched_process process = launch_process(r, launch_context{});
  EXPECT_FALSE(process.error) << process.error.message();
  return process;
}

// Writes one message to the helper as Node does: the fields as a msgpack array, framed.
template <class... T>
void send_message(int fd, const T&... fields) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(sizeof...(fields));
  (pk.pack(fields), ...);
  const std::string frame = test::frame(std::string(buf.data(), buf.size()));
  ASSERT_EQ(write(fd, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
}

}  // namespace spawnhost::test
