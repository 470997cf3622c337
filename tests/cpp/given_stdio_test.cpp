// Stdio kind given, end to end: a descriptor Node sends on its IPC channel to the
// helper (--ipc-fd) becomes the stdio of the spawn that names its token. The spawn is
// read from the other channel and may come first: it waits. A spawn that names no
// token is refused, and one still waiting at shutdown is answered.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "frame_stream.hpp"
#include "helper_under_test.hpp"
#include "node_side.hpp"
#include "launch/process.hpp"
#include "test_util.hpp"

namespace spawnhost {
namespace {

using nlohmann::json;

template <class... T>
void send(int fd, const T&... fields) {
  test::send_message(fd, fields...);
}

// What Node's channel code writes for helper.send({ cmd, token }, handle): one line, the
// descriptor as SCM_RIGHTS.
void give(int channel, std::uint64_t token, int fd) {
  const std::string line = R"({"cmd":"NODE_HANDLE","type":"net.Native","msg":{"cmd":"NODE_SPAWNHOST_GIVE","token":)" +
                           std::to_string(token) + "}}\n";
  ASSERT_EQ(test::send_line_with_fd(channel, line, fd), static_cast<ssize_t>(line.size()));
}

bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, ms) > 0;
}

// A helper with Node's IPC channel on fd 3 (--ipc-fd 3), its hello read.
class helper_with_ipc {
 public:
  helper_with_ipc() {
    process_ = test::start_helper_with_fd3({"--grace-ms", "300", "--ipc-fd", "3"});
    output = test::frame_stream(process_.stdio[1].get());
    EXPECT_EQ(output.next()[0], 1);
  }
  ~helper_with_ipc() {
    process_.stdio[0].reset();
    exit_status st;
    if (process_.pid > 0) reap_process(process_.pid, process_.exit_handle.get(), st);
  }
  int input() { return process_.stdio[0].get(); }
  int channel() { return process_.channel.get(); }
  int output_fd() { return process_.stdio[1].get(); }
  void close_input() { process_.stdio[0].reset(); }

  test::frame_stream output{-1};

 private:
  launched_process process_;
};

// stdin given (kind 3) with token `token`, stdout piped, stderr ignored.
std::map<std::string, std::vector<int>> given_stdin(int token) {
  return {{"stdio", {3, 0, 1}}, {"given", {token, 0, 0}}};
}

TEST(GivenStdio, ASpawnThatComesBeforeItsDescriptorWaitsForItThenReadsIt) {
  helper_with_ipc h;
  send(h.input(), 16, 5, std::string("cat"), std::vector<std::string>{}, given_stdin(7));
  EXPECT_FALSE(readable_within(h.output_fd(), 300)) << "the spawn went before its descriptor came";
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  give(h.channel(), 7, p[0]);
  close(p[0]);
  ASSERT_EQ(write(p[1], "given", 5), 5);
  close(p[1]);
  const json spawned = h.output.next();
  ASSERT_EQ(spawned[0], 2) << spawned.dump();
  const json data = h.output.next_of(4);
  EXPECT_EQ(data[2], 1);
  EXPECT_EQ(test::unhex(data[3]["$bin"]), "given");
  const json exit = h.output.next_of(6);
  EXPECT_EQ(exit[2], 0) << exit.dump();
  char ack[64] = {};
  ASSERT_TRUE(readable_within(h.channel(), 2000));
  ASSERT_GT(read(h.channel(), ack, sizeof ack - 1), 0);
  EXPECT_STREQ(ack, "{\"cmd\":\"NODE_HANDLE_ACK\"}\n");
}

TEST(GivenStdio, AGivenEntryWithoutItsTokenIsRefused) {
  helper_with_ipc h;
  std::map<std::string, std::vector<int>> options{{"stdio", {3, 0, 1}}};
  send(h.input(), 16, 5, std::string("true"), std::vector<std::string>{}, options);
  const json error = h.output.next();
  ASSERT_EQ(error[0], 9) << error.dump();
  EXPECT_NE(error[3].get<std::string>().find("without its token"), std::string::npos) << error.dump();
}

TEST(GivenStdio, AtShutdownASpawnStillWaitingForItsDescriptorIsCancelled) {
  helper_with_ipc h;
  send(h.input(), 16, 5, std::string("cat"), std::vector<std::string>{}, given_stdin(9));
  h.close_input();
  const json answer = h.output.next();
  ASSERT_EQ(answer[0], 3) << answer.dump();
  EXPECT_EQ(answer[2], "ECANCELED");
  EXPECT_TRUE(h.output.next().is_null()) << "the helper went on after its shutdown";
}

}  // namespace
}  // namespace spawnhost
