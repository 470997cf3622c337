// helper/node_ipc on a socketpair standing for Node's end: one sendmsg per hand-over
// with its descriptor, the copy kept until the ACK, a NACK sends it again (then
// fails), a NODE_HANDLE from Node is acknowledged, and garbage is an error, not a crash.
#include "node_ipc.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "node_side.hpp"

namespace spawnhost {
namespace {

struct recorder : node_ipc::handler {
  std::vector<std::string> failed, messages, errors;
  void hand_over_failed(std::uint64_t id, const std::string& why) override { failed.push_back(std::to_string(id) + ": " + why); }
  void received(const std::string& message, os_handle) override { messages.push_back(message); }
  void channel_error(const std::string& why) override { errors.push_back(why); }
};

// Reads one message on Node's end: its bytes and the descriptor it carried (-1: none).
std::pair<std::string, int> receive(int fd) {
  char buffer[4096];
  iovec iov{buffer, sizeof buffer};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd, &msg, 0);
  int got = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) std::memcpy(&got, CMSG_DATA(c), sizeof got);
  return {std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), got};
}

void say(int fd, const std::string& line) { ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size())); }

bool open_fd(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

class NodeIpc : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0); }
  void TearDown() override { ::close(ends[1]); }
  void run() {
    io.restart();
    io.run_for(std::chrono::milliseconds(50));
  }
  int ends[2];
  asio::io_context io;
  recorder events;
};

TEST_F(NodeIpc, HandsOverOneDescriptorPerLineAndKeepsItUntilTheAck) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  ::close(pipe_fds[0]);
  const int ours = pipe_fds[1];
  ipc.hand_over(7, 4242, 1, os_handle(ours));
  run();
  auto [line, fd] = receive(ends[1]);
  EXPECT_EQ(line, R"({"cmd":"NODE_HANDLE","type":"net.Native","msg":{"cmd":"NODE_SPAWNHOST_STDIO","id":7,"pid":4242,"fd":1}})" "\n");
  ASSERT_GE(fd, 0);
  EXPECT_NE(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << "handed over non-blocking, as libuv expects";
  ::close(fd);
  EXPECT_TRUE(open_fd(ours)) << "closed before Node acknowledged it";
  EXPECT_EQ(ipc.outstanding(), 1u);
  say(ends[1], "{\"cmd\":\"NODE_HANDLE_ACK\"}\n");
  run();
  EXPECT_EQ(ipc.outstanding(), 0u);
  EXPECT_FALSE(open_fd(ours)) << "still held after the ACK";
  EXPECT_TRUE(events.failed.empty() && events.errors.empty());
}

TEST_F(NodeIpc, ANackSendsItAgainThenTheLaunchFails) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  ::close(pipe_fds[0]);
  ipc.hand_over(3, 1, 0, os_handle(pipe_fds[1]));
  for (int transmission = 0; transmission <= node_ipc::max_retransmissions; ++transmission) {
    run();
    auto [line, fd] = receive(ends[1]);
    EXPECT_NE(line.find("\"id\":3"), std::string::npos);
    EXPECT_GE(fd, 0);
    ::close(fd);
    say(ends[1], "{\"cmd\":\"NODE_HANDLE_NACK\"}\n");
  }
  run();
  ASSERT_EQ(events.failed.size(), 1u);
  EXPECT_EQ(events.failed[0].rfind("3: ", 0), 0u);
  EXPECT_EQ(ipc.outstanding(), 0u);
}

TEST_F(NodeIpc, AHandleFromNodeIsAcknowledgedAndGarbageIsAnErrorNotACrash) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  say(ends[1], "not json\n{\"cmd\":\"NODE_HANDLE_ACK\"}\n{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Socket\",\"msg\":{\"a\":1}}\n");
  run();
  EXPECT_EQ(events.errors.size(), 3u) << "garbage, an ACK for nothing, a handle line without its descriptor";
  auto [line, fd] = receive(ends[1]);
  EXPECT_EQ(line, "{\"cmd\":\"NODE_HANDLE_NACK\"}\n");
  EXPECT_EQ(fd, -1);
  // Now with a descriptor: acknowledged, and its `msg` given to the handler.
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  const std::string handle_line = "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Native\",\"msg\":{\"b\":2}}\n";
  ASSERT_GT(test::send_line_with_fd(ends[1], handle_line, pipe_fds[0]), 0);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  run();
  EXPECT_EQ(receive(ends[1]).first, "{\"cmd\":\"NODE_HANDLE_ACK\"}\n");
  ASSERT_EQ(events.messages.size(), 1u);
  EXPECT_EQ(events.messages[0], "{\"b\":2}");
}

TEST_F(NodeIpc, NodeClosingTheChannelFailsWhatWaits) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  ::close(pipe_fds[0]);
  ipc.hand_over(9, 1, 2, os_handle(pipe_fds[1]));
  run();
  ::shutdown(ends[1], SHUT_WR);
  run();
  ASSERT_EQ(events.failed.size(), 1u);
  ipc.hand_over(10, 1, 2, os_handle(::dup(0)));
  EXPECT_EQ(events.failed.size(), 2u) << "a hand-over after the end fails at once";
}

}  // namespace
}  // namespace spawnhost
