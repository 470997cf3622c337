// helper/node_ipc on a socketpair standing for Node's end: one sendmsg per hand-over
// with its descriptor, our copy closed once it went, kept while the channel is full
// and failed when the channel ends; a NODE_HANDLE from Node is acknowledged, and
// garbage is an error, not a crash.
#include "launch/node_ipc.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

// A pipe's write end, standing for a child's stdio socket end.
int stdio_end() {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
  ::close(pipe_fds[0]);
  return pipe_fds[1];
}

TEST_F(NodeIpc, HandsOverOneDescriptorPerMessageAndClosesItsCopyOnceSent) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  const int ours = stdio_end();
  ipc.hand_over(7, 4242, {os_handle(), os_handle(ours), os_handle()});
  run();
  EXPECT_EQ(ipc.outstanding(), 0u);
  EXPECT_FALSE(open_fd(ours)) << "the helper kept its copy of a descriptor it sent";
  auto [line, fd] = receive(ends[1]);
  EXPECT_EQ(line, R"({"cmd":"NODE_SPAWNHOST_STDIO","id":7,"pid":4242,"fds":[1]})" "\n");
  ASSERT_GE(fd, 0);
  EXPECT_NE(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << "handed over non-blocking, as libuv expects";
  ::close(fd);
  EXPECT_TRUE(events.failed.empty() && events.errors.empty());
}

TEST_F(NodeIpc, ALaunchsThreeDescriptorsComeInOrderAndTheLastNamesThemAll) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  const int fds[3] = {stdio_end(), stdio_end(), stdio_end()};
  ino_t sent[3];
  for (int k = 0; k < 3; ++k) {
    struct stat st{};
    ::fstat(fds[k], &st);
    sent[k] = st.st_ino;
  }
  ipc.hand_over(5, 99, {os_handle(fds[0]), os_handle(fds[1]), os_handle(fds[2])});
  run();
  std::string bytes;
  std::vector<ino_t> inodes;
  // One descriptor per read: the kernel ends a read at a message that carries one.
  for (int k = 0; k < 3; ++k) {
    auto [chunk, fd] = receive(ends[1]);
    ASSERT_GE(fd, 0) << "read " << k << " came without its descriptor: " << chunk;
    struct stat st{};
    ::fstat(fd, &st);
    inodes.push_back(st.st_ino);
    ::close(fd);
    bytes += chunk;
  }
  EXPECT_EQ(bytes, "  " R"({"cmd":"NODE_SPAWNHOST_STDIO","id":5,"pid":99,"fds":[0,1,2]})" "\n");
  for (int k = 0; k < 3; ++k) EXPECT_EQ(inodes[k], sent[k]) << "stdio " << k << " came out of order";
  for (const int fd : fds) EXPECT_FALSE(open_fd(fd));
}

// Fills the helper's end of the channel, as a Node that does not read would.
void fill(int fd) {
  const std::string junk(4096, 'x');
  while (::send(fd, junk.data(), junk.size(), MSG_DONTWAIT) > 0) {
  }
}

TEST_F(NodeIpc, AFullChannelKeepsTheDescriptorUntilItGoesAndAnEndedOneFailsIt) {
  fill(ends[0]);
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  const int ours = stdio_end();
  ipc.hand_over(9, 1, {os_handle(), os_handle(), os_handle(ours)});
  run();
  EXPECT_EQ(ipc.outstanding(), 1u);
  EXPECT_TRUE(open_fd(ours)) << "closed before it was sent";
  EXPECT_TRUE(events.failed.empty());
  ::shutdown(ends[1], SHUT_WR);  // Node closes its side of the channel
  run();
  ASSERT_EQ(events.failed.size(), 1u);
  EXPECT_EQ(events.failed[0].rfind("9: ", 0), 0u);
  EXPECT_FALSE(open_fd(ours)) << "a failed hand-over's descriptor stayed open";
  ipc.hand_over(10, 1, {os_handle(), os_handle(), os_handle(::dup(0))});
  EXPECT_EQ(events.failed.size(), 2u) << "a hand-over after the end fails at once";
}

TEST_F(NodeIpc, AHandleFromNodeIsAcknowledgedAndGarbageIsAnErrorNotACrash) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  say(ends[1], "not json\n{\"cmd\":\"NODE_HANDLE_ACK\"}\n{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Socket\",\"msg\":{\"a\":1}}\n");
  run();
  EXPECT_EQ(events.errors.size(), 3u) << "garbage, an ACK (the helper sends no NODE_HANDLE to answer), a handle line without its descriptor";
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

TEST_F(NodeIpc, SpawnhostsOwnGiveIsTakenWithoutAnAckAndWithoutItsDescriptorIsAnError) {
  node_ipc ipc(io, ends[0], events);
  ipc.start();
  // spawnhost's JS writes it straight to the channel (js/src/helper/give-now.js): a
  // thread blocked on a terminal's pid reads no ACK, so none is sent.
  int pipe_fds[2];
  ASSERT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
  const std::string give = "{\"cmd\":\"NODE_SPAWNHOST_GIVE\",\"token\":7}";
  ASSERT_GT(test::send_line_with_fd(ends[1], give + "\n", pipe_fds[0]), 0);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  run();
  ASSERT_EQ(events.messages.size(), 1u);
  EXPECT_EQ(events.messages[0], give);
  EXPECT_TRUE(events.errors.empty());
  // Without a descriptor it is not a give: an error, and still no answer.
  say(ends[1], give + "\n");
  run();
  EXPECT_EQ(events.messages.size(), 1u);
  EXPECT_EQ(events.errors.size(), 1u);
  ASSERT_EQ(::fcntl(ends[1], F_SETFL, O_NONBLOCK), 0);
  char byte;
  EXPECT_EQ(::recv(ends[1], &byte, 1, 0), -1) << "nothing was sent to Node";
}

}  // namespace
}  // namespace spawnhost
