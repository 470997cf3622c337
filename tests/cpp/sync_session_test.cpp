// The helper's second session on the sync socket (--sync-fd), end to end: the same
// protocol on both channels, await_spawn about the main channel's launches, and one
// shutdown for both.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <thread>

#include "frame_stream.hpp"
#include "helper_under_test.hpp"
#include "launch/process.hpp"
#include "test_util.hpp"

namespace spawnhost {
namespace {

using nlohmann::json;

using test::frame_stream;

template <class... T>
void send(int fd, const T&... fields) {
  test::send_message(fd, fields...);
}

// A helper started with --sync-fd 3 (its IPC socketpair stands in for the one Node
// adds to its stdio), with both channels open.
class two_channel_helper {
 public:
  two_channel_helper() {
    process_ = test::start_helper_with_fd3({"--grace-ms", "300", "--sync-fd", "3"});
    main = frame_stream(process_.stdio[1].get());
    EXPECT_EQ(main.next()[0], 1);
    reply = frame_stream(process_.channel.get());
  }
  ~two_channel_helper() {
    close_main();
    if (process_.pid > 0) wait_exit();
  }
  void close_main() { process_.stdio[0].reset(); }
  exit_status wait_exit() {
    exit_status st;
    EXPECT_FALSE(reap_process(process_.pid, process_.exit_handle.get(), st));
    process_.pid = -1;
    return st;
  }
  int main_input() { return process_.stdio[0].get(); }
  int request() { return process_.channel.get(); }

  frame_stream main{-1};   // the helper's stdout
  frame_stream reply{-1};  // the sync socket

 private:
  launched_process process_;
};

std::map<std::string, int> no_options() { return {}; }

TEST(SyncSession, TheFifosSpeakTheSameProtocolWithTheirOwnChildren) {
  two_channel_helper h;
  EXPECT_EQ(h.reply.next()[0], 1);  // its own hello
  send(h.request(), 16, 1, std::string("sh"), std::vector<std::string>{"-c", "printf sync; exit 4"}, no_options());
  EXPECT_EQ(h.reply.next_of(2)[1], 1);
  json data = h.reply.next_of(4);
  EXPECT_EQ(test::unhex(data[3]["$bin"]), "sync");
  EXPECT_EQ(h.reply.next_of(6), json::parse("[6, 1, 4, null, 0]"));
  // Id 1 on the main channel is another child: the tables are separate.
  send(h.main_input(), 16, 1, std::string("true"), std::vector<std::string>{}, no_options());
  EXPECT_EQ(h.main.next_of(6), json::parse("[6, 1, 0, null, 0]"));
}

TEST(SyncSession, AwaitSpawnIsAnsweredWhenTheMainChannelsLaunchIsKnown) {
  two_channel_helper h;
  h.reply.next();
  // The question may overtake the spawn: asked first, answered once the launch is done.
  send(h.request(), 26, 9);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  send(h.main_input(), 16, 9, std::string("sleep"), std::vector<std::string>{"1"}, no_options());
  json known = h.reply.next_of(14);
  json spawned = h.main.next_of(2);
  ASSERT_FALSE(known.is_null());
  EXPECT_EQ(known[1], 9);
  EXPECT_EQ(known[2], spawned[2]);
  EXPECT_TRUE(known[3].is_null());
  // A launch that failed is answered with its error code.
  send(h.main_input(), 16, 10, std::string("/nonexistent/program"), std::vector<std::string>{}, no_options());
  send(h.request(), 26, 10);
  EXPECT_EQ(h.reply.next_of(14), json::parse("[14, 10, null, \"ENOENT\"]"));
  // An id before the last spawn read, never launched: answered at once, not awaited.
  send(h.request(), 26, 3);
  EXPECT_EQ(h.reply.next_of(14), json::parse("[14, 3, null, \"ESRCH\"]"));
}

TEST(SyncSession, TheMainChannelsEndEndsTheSyncChildren) {
  two_channel_helper h;
  h.reply.next();
  send(h.request(), 16, 1, std::string("sleep"), std::vector<std::string>{"30"}, no_options());
  ASSERT_FALSE(h.reply.next_of(2).is_null());
  const auto started = std::chrono::steady_clock::now();
  h.close_main();
  EXPECT_EQ(h.reply.next_of(6), json::parse("[6, 1, null, \"SIGTERM\", 0]"));
  EXPECT_EQ(h.wait_exit().code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(SyncSession, TheSyncChannelsInputEndingDoesNotStopTheHelper) {
  two_channel_helper h;
  h.reply.next();
  send(h.request(), 26, 1);
  // A frame over the size limit ends the sync channel with a fatal error for it alone.
  const std::string oversized_head("\xff\xff\xff\x7f", 4);
  ASSERT_EQ(write(h.request(), oversized_head.data(), 4), 4);
  EXPECT_EQ(h.reply.next_of(9)[2], true);
  send(h.main_input(), 16, 2, std::string("true"), std::vector<std::string>{}, no_options());
  EXPECT_EQ(h.main.next_of(6), json::parse("[6, 2, 0, null, 0]"));
}

}  // namespace
}  // namespace spawnhost
