// libuv's Windows IPC framing as the Windows helper relays it (helper/windows/ipc_frames.hpp):
// plain C++, so tested here on every platform.
#include "windows/ipc_frames.hpp"

#include <gtest/gtest.h>

#include <string>

namespace spawnhost::windows {
namespace {

std::string frame(const std::string& data, bool socket = false, std::uint32_t extra_flags = 0) {
  unsigned char head[ipc_head_size];
  ipc_frame_head(head, static_cast<std::uint32_t>(data.size()));
  if (socket) put_u32(head, get_u32(head) | ipc_has_socket | extra_flags);
  std::string out(reinterpret_cast<const char*>(head), ipc_head_size);
  if (socket) out += std::string(ipc_socket_info_size, '\x7f');  // a WSAPROTOCOL_INFOW and its error
  return out + data;
}

// Feeds `wire` in reads of `piece` bytes; returns the data relayed.
std::string relay(const std::string& wire, std::size_t piece, bool& ok) {
  ipc_deframer d;
  std::string out;
  ok = true;
  for (std::size_t at = 0; at < wire.size() && ok; at += piece) {
    std::string read = wire.substr(at, piece);
    std::size_t n = 0;
    ok = d.take(read.data(), read.size(), n);
    out.append(read, 0, n);
  }
  return out;
}

TEST(IpcFrames, HeadIsLibuvsLayout) {
  unsigned char head[ipc_head_size];
  ipc_frame_head(head, 0x01020304);
  const unsigned char expected[ipc_head_size] = {1, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 1, 0, 0, 0, 0};
  EXPECT_EQ(std::string(reinterpret_cast<char*>(head), 16), std::string(reinterpret_cast<const char*>(expected), 16));
}

TEST(IpcFrames, DataOfFramesSplitAtEveryByte) {
  const std::string wire = frame("{\"a\":1}\n") + frame("x") + frame(std::string(70000, 'y')) + frame("end\n");
  const std::string data = "{\"a\":1}\nx" + std::string(70000, 'y') + "end\n";
  for (std::size_t piece : {1, 2, 15, 16, 17, 4096, 1 << 20}) {
    bool ok;
    EXPECT_EQ(relay(wire, piece, ok), data) << piece;
    EXPECT_TRUE(ok);
  }
}

TEST(IpcFrames, SocketDescriptionsAreDroppedAndTheirMessageKept) {
  const std::string handle_line = "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Server\",\"msg\":\"m\"}\n";
  const std::string wire = frame("before\n") + frame(handle_line, true) + frame("conn\n", true, ipc_is_tcp_connection) + frame("after\n");
  for (std::size_t piece : {1, 7, 16, 631, 632, 65536}) {
    bool ok;
    EXPECT_EQ(relay(wire, piece, ok), "before\n" + handle_line + "conn\nafter\n") << piece;
    EXPECT_TRUE(ok);
  }
}

TEST(IpcFrames, WhatIsNotLibuvsFramingEndsTheChannel) {
  bool ok;
  relay("plain bytes that are not frames", 64, ok);  // flags 0x69616c70: unknown bits
  EXPECT_FALSE(ok);
  std::string reserved = frame("x");
  reserved[12] = 1;  // the second reserved word must be zero
  relay(reserved, 64, ok);
  EXPECT_FALSE(ok);
  std::string no_data_flag = frame("x");
  no_data_flag[0] = 0;  // a length without has_data
  relay(no_data_flag, 64, ok);
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace spawnhost::windows
