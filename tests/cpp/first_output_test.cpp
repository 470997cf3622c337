// helper/linux/first_output.cpp: which output of a handed-over launch became
// readable first, on socketpairs standing for the child's stdout and stderr. Only
// "stderr first" is reported, once, and not after forget(), beyond the limit of
// launches watched or after the object's end. The watch holds no descriptor of the
// outputs: the caller's close is their end. Through node_ipc, the report is a line
// after the launch's descriptors.
#include "posix/first_output.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <asio/io_context.hpp>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "launch/node_ipc.hpp"

namespace spawnhost {
namespace {

int open_descriptors() {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) n += ::fcntl(fd, F_GETFD) >= 0;
  return n;
}

// One output: [0] the parent's end (handed over, watched), [1] the child's.
struct output {
  int ends[2] = {-1, -1};
  output() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends), 0); }
  ~output() {
    for (const int fd : ends) if (fd >= 0) ::close(fd);
  }
  void write(const char* text) const { ASSERT_EQ(::write(ends[1], text, std::strlen(text)), static_cast<ssize_t>(std::strlen(text))); }
};

class FirstOutput : public ::testing::Test {
 protected:
  // asio makes its reactor's descriptors (epoll, eventfd, timerfd) at the first
  // descriptor it watches: made here, so that counts taken in a test see only ours.
  void SetUp() override {
    first_output warm(io, [](std::uint64_t, std::uint64_t) {});
    warm.watch(0, 0, out.ends[0], err.ends[0]);
  }
  void run() {
    io.restart();
    io.run_for(std::chrono::milliseconds(50));
  }
  asio::io_context io;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reports;
  first_output watch{io, [this](std::uint64_t id, std::uint64_t pid) { reports.emplace_back(id, pid); }};
  output out, err;
};

TEST_F(FirstOutput, StderrReadableBeforeStdoutIsReportedAndNoDescriptorIsHeld) {
  const int before = open_descriptors();
  watch.watch(7, 4242, out.ends[0], err.ends[0]);
  EXPECT_EQ(open_descriptors(), before) << "the watch holds a descriptor of its own";
  run();
  EXPECT_TRUE(reports.empty()) << "nothing is readable yet";
  err.write("foo");
  run();
  out.write("bar");
  run();
  EXPECT_EQ(reports, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{7, 4242}}));
  EXPECT_EQ(watch.watching(), 0u);
  EXPECT_EQ(open_descriptors(), before);
  EXPECT_GE(::fcntl(out.ends[0], F_GETFD), 0) << "the caller's descriptor was closed";
  EXPECT_GE(::fcntl(err.ends[0], F_GETFD), 0) << "the caller's descriptor was closed";
}

// What child_process promises: once Node closed its end of a child's stdout, the
// child's next write fails (EPIPE), watched or not.
TEST_F(FirstOutput, TheCallersCloseEndsTheOutputWhileItIsWatched) {
  watch.watch(7, 4242, out.ends[0], err.ends[0]);
  run();
  ::close(std::exchange(out.ends[0], -1));
  ::close(std::exchange(err.ends[0], -1));
  for (const int child_end : {out.ends[1], err.ends[1]}) {
    errno = 0;
    EXPECT_EQ(::send(child_end, "x", 1, MSG_NOSIGNAL), -1) << "a write to an output nobody holds succeeded";
    EXPECT_EQ(errno, EPIPE);
  }
  run();
  EXPECT_TRUE(reports.empty());
}

TEST_F(FirstOutput, StdoutFirstIsNodesDefaultOrderAndSaysNothing) {
  watch.watch(1, 2, out.ends[0], err.ends[0]);
  out.write("bar");
  run();
  err.write("foo");
  run();
  EXPECT_TRUE(reports.empty());
  EXPECT_EQ(watch.watching(), 0u);
}

TEST_F(FirstOutput, TwoBecomingReadableBeforeTheLoopLooksKeepTheirOrder) {
  watch.watch(1, 2, out.ends[0], err.ends[0]);
  run();
  err.write("foo");
  out.write("bar");
  run();
  EXPECT_EQ(reports.size(), 1u) << "stderr was readable first";
  EXPECT_EQ(watch.watching(), 0u);
}

TEST_F(FirstOutput, TheChildsExitEndsStdoutFirstAndSaysNothing) {
  watch.watch(1, 2, out.ends[0], err.ends[0]);
  run();
  // As the kernel closes an exiting process's descriptors: in order.
  ::close(std::exchange(out.ends[1], -1));
  ::close(std::exchange(err.ends[1], -1));
  run();
  EXPECT_TRUE(reports.empty());
  EXPECT_EQ(watch.watching(), 0u);
}

TEST_F(FirstOutput, StderrsEndCountsAsReadable) {
  watch.watch(3, 4, out.ends[0], err.ends[0]);
  ::close(std::exchange(err.ends[1], -1));
  run();
  EXPECT_EQ(reports.size(), 1u);
}

TEST_F(FirstOutput, AForgottenLaunchIsNotReportedAndTheNextIs) {
  output out2, err2;
  watch.watch(9, 10, out.ends[0], err.ends[0]);
  watch.watch(11, 12, out2.ends[0], err2.ends[0]);
  run();
  watch.forget(9);
  EXPECT_EQ(watch.watching(), 1u);
  watch.forget(11);
  EXPECT_EQ(watch.watching(), 0u);
  err.write("foo");
  err2.write("foo");
  run();
  EXPECT_TRUE(reports.empty()) << "a forgotten launch was reported";
  // The forgotten launches' ends are still in the set, one-shot: a new launch on the
  // same descriptors is told apart from them.
  output out3, err3;
  watch.watch(9, 13, out3.ends[0], err3.ends[0]);
  err3.write("foo");
  run();
  EXPECT_EQ(reports, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{9, 13}}));
}

TEST_F(FirstOutput, NothingIsReportedAfterTheWatchersEnd) {
  {
    first_output other(io, [](std::uint64_t, std::uint64_t) { FAIL() << "reported after its end"; });
    other.watch(1, 2, out.ends[0], err.ends[0]);
    run();
  }
  err.write("foo");
  run();  // the aborted wait finds nothing of it
}

TEST_F(FirstOutput, TheOldestLaunchWatchedGivesWayBeyondTheLimit) {
  first_output small(io, [this](std::uint64_t id, std::uint64_t pid) { reports.emplace_back(id, pid); }, 2);
  output out2, err2, out3, err3;
  small.watch(1, 10, out.ends[0], err.ends[0]);
  small.watch(2, 20, out2.ends[0], err2.ends[0]);
  small.watch(3, 30, out3.ends[0], err3.ends[0]);
  EXPECT_EQ(small.watching(), 2u);
  err.write("foo");
  run();
  EXPECT_TRUE(reports.empty()) << "the launch given up on was still watched";
  err3.write("foo");
  run();
  EXPECT_EQ(reports, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{{3, 30}}));
}

struct no_events : node_ipc::handler {
  void hand_over_failed(std::uint64_t, const std::string& why) override { ADD_FAILURE() << why; }
  void received(const std::string&, os_handle) override {}
  void channel_error(const std::string& why) override { ADD_FAILURE() << why; }
};

// What Node's end reads, descriptors closed at once.
std::string read_all(int fd) {
  std::string bytes;
  for (;;) {
    char buffer[4096];
    iovec iov{buffer, sizeof buffer};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &msg, MSG_DONTWAIT);
    if (n <= 0) return bytes;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      int got;
      std::memcpy(&got, CMSG_DATA(c), sizeof got);
      ::close(got);
    }
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

TEST_F(FirstOutput, NodeIpcSaysStderrFirstAfterTheLaunchsDescriptorsAndForgetsAtTheChildsExit) {
  int channel[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel), 0);
  no_events events;
  node_ipc ipc(io, channel[0], events);
  ipc.start();
  ipc.hand_over(5, 99, {os_handle(), os_handle(::dup(out.ends[0])), os_handle(::dup(err.ends[0]))});
  run();
  err.write("foo");
  run();
  EXPECT_EQ(read_all(channel[1]), " " R"({"cmd":"NODE_SPAWNHOST_STDIO","id":5,"pid":99,"fds":[1,2]})" "\n"
                                  R"({"cmd":"NODE_SPAWNHOST_FIRST","id":5,"pid":99,"fd":2})" "\n");
  // A child reaped before either output was readable (a grandchild holds them): its
  // stderr, written later, is not said first.
  const int before = open_descriptors();
  output out2, err2;
  ipc.hand_over(6, 100, {os_handle(), os_handle(::dup(out2.ends[0])), os_handle(::dup(err2.ends[0]))});
  run();
  EXPECT_EQ(open_descriptors(), before + 4) << "two socketpairs, and nothing of the helper's";
  ipc.child_exited(6);
  err2.write("foo");
  run();
  EXPECT_EQ(read_all(channel[1]), " " R"({"cmd":"NODE_SPAWNHOST_STDIO","id":6,"pid":100,"fds":[1,2]})" "\n");
  ::close(channel[1]);
}

}  // namespace
}  // namespace spawnhost
