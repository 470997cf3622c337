// The helper binary end to end, driven over its stdin/stdout like Node drives it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>

#include "frame_stream.hpp"
#include "launch/process.hpp"
#include "test_util.hpp"

namespace spawnhost {
namespace {

using nlohmann::json;

class helper_client {
 public:
  explicit helper_client(std::vector<std::string> args = {"--grace-ms", "300"}) {
    spawn_request r;
    r.id = 1;
    r.file = SPAWNHOST_HELPER_PATH;
    r.args = std::move(args);
    r.options.stdio = {protocol::stdio_kind::pipe, protocol::stdio_kind::pipe, protocol::stdio_kind::ignore};
    const launch_context none;
    process_ = launch_process(r, none);
    EXPECT_FALSE(process_.error) << process_.error.message();
    output_ = test::frame_stream(process_.stdio[1].get());
  }
  ~helper_client() {
    close_input();
    exit_status st;
    if (process_.pid > 0) reap_process(process_.pid, process_.exit_handle.get(), st);
  }

  void send_raw(const std::string& bytes) {
    ASSERT_EQ(write(process_.stdio[0].get(), bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  template <class... T>
  void send(const T&... fields) {
    msgpack::sbuffer buf;
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_array(sizeof...(fields));
    (pk.pack(fields), ...);
    send_raw(test::frame(std::string(buf.data(), buf.size())));
  }
  void close_input() { process_.stdio[0].reset(); }

  // The next message as JSON, or null after 5 s or at end of output.
  json next() { return output_.next(); }
  // Skips messages until one with this code arrives.
  json next_of(int code) { return output_.next_of(code); }
  // What one read of the helper's output brings.
  std::vector<json> next_read() { return output_.next_read(); }

  exit_status wait_exit() {
    exit_status st;
    EXPECT_FALSE(reap_process(process_.pid, process_.exit_handle.get(), st));
    process_.pid = -1;
    return st;
  }

 private:
  launched_process process_;
  test::frame_stream output_;
};

std::map<std::string, int> no_options() { return {}; }

TEST(Helper, SaysHelloFirstWithProtocolAndVersion) {
  helper_client h;
  json hello = h.next();
  ASSERT_FALSE(hello.is_null());
  EXPECT_EQ(hello[0], 1);
  EXPECT_EQ(hello[1], protocol::version);
  EXPECT_TRUE(hello[2].is_string());
}

TEST(Helper, RunsAChildAndReportsOutputEofAndExitInOrder) {
  helper_client h;
  h.next();
  h.send(16, 5, std::string("sh"), std::vector<std::string>{"-c", "printf out; printf err >&2; exit 7"}, no_options());
  json spawned = h.next();
  EXPECT_EQ(spawned[0], 2);
  EXPECT_EQ(spawned[1], 5);
  std::string out, err;
  int eofs = 0;
  json exit_msg;
  for (json m = h.next(); !m.is_null() && (eofs < 2 || exit_msg.is_null()); m = h.next()) {
    if (m[0] == 4) (m[2] == 1 ? out : err) += test::unhex(m[3]["$bin"]);
    if (m[0] == 5) ++eofs;
    if (m[0] == 6) exit_msg = m;
    if (eofs == 2 && !exit_msg.is_null()) break;
  }
  EXPECT_EQ(out, "out");
  EXPECT_EQ(err, "err");
  EXPECT_EQ(exit_msg, json::parse("[6, 5, 7, null, 0]"));
}

TEST(Helper, AnExecWithTheResultOptionIsAnsweredWithOneResultFrame) {
  helper_client h;
  h.next();
  h.send(16, 5, std::string("sh"), std::vector<std::string>{"-c", "printf out; printf err >&2; exit 7"},
         std::map<std::string, int>{{"result", 1024}});
  json result = h.next();
  ASSERT_FALSE(result.is_null());
  EXPECT_EQ(result[0], static_cast<int>(protocol::msg::result));
  EXPECT_EQ(result[1], 5);
  EXPECT_EQ(result[2], 7);
  EXPECT_TRUE(result[3].is_null());
  EXPECT_EQ(result[4], 0);
  EXPECT_EQ(test::unhex(result[5]["$bin"]), "out");
  EXPECT_EQ(test::unhex(result[6]["$bin"]), "err");
  EXPECT_GT(result[7].get<int>(), 0);
  // Nothing more about id 5: the next frame is the answer to a ping sent now.
  h.send(25, 77);
  EXPECT_EQ(h.next(), json::parse("[13, 77]"));
}

TEST(Helper, FramesProducedInOneTurnGoOutInOneWrite) {
  helper_client h;
  h.next();
  // Forty pings in one write are decoded in one turn of the helper's loop: their pongs
  // (320 bytes, under PIPE_BUF) are one write, so one read takes them all.
  std::string pings;
  for (int i = 1; i <= 40; ++i) {
    msgpack::sbuffer buf;
    msgpack::packer<msgpack::sbuffer> pk(buf);
    pk.pack_array(2);
    pk.pack(25);
    pk.pack(i);
    pings += test::frame(std::string(buf.data(), buf.size()));
  }
  h.send_raw(pings);
  const std::vector<json> first = h.next_read();
  ASSERT_EQ(first.size(), 40u);
  EXPECT_EQ(first.back(), json::parse("[13, 40]"));
}

// A write lease on a file: any open of it, exec's included, waits until the lease is let
// go (or /proc/sys/fs/lease-break-time passes). Each such open signals the holder with
// SIGIO, which would end this process by default, so it is ignored meanwhile.
class write_lease {
 public:
  explicit write_lease(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    previous_ = signal(SIGIO, SIG_IGN);
    held_ = fd_ >= 0 && fcntl(fd_, F_SETLEASE, F_WRLCK) == 0;
  }
  ~write_lease() {
    release();
    signal(SIGIO, previous_);
  }
  bool held() const { return held_; }
  void release() {
    if (fd_ < 0) return;
    fcntl(fd_, F_SETLEASE, F_UNLCK);
    close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  bool held_ = false;
  sighandler_t previous_;
};

TEST(Helper, ALaunchQueuedPastItsDeadlineNeverStarts) {
  char dir[] = "/tmp/spawnhost-queued-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string blocker = std::string(dir) + "/blocker.sh", marker = std::string(dir) + "/started";
  std::ofstream(blocker) << "#!/bin/sh\nexit 0\n";
  ASSERT_EQ(chmod(blocker.c_str(), 0755), 0);
  helper_client h({"--grace-ms", "300", "--launch-threads", "1"});
  h.next();
  write_lease lease(blocker);
  ASSERT_TRUE(lease.held()) << std::strerror(errno);
  // The only launch thread waits inside the first launch's exec; the second, with a
  // 100 ms timeout, waits in the queue ten times that long.
  h.send(16, 1, blocker, std::vector<std::string>{}, no_options());
  std::map<std::string, int> options{{"timeout_ms", 100}};
  h.send(16, 2, std::string("touch"), std::vector<std::string>{marker}, options);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  lease.release();
  EXPECT_EQ(h.next_of(3), json::parse(R"([3, 2, "ETIMEDOUT", "queue"])"));
  struct stat st {};
  EXPECT_NE(stat(marker.c_str(), &st), 0) << "the launch past its deadline ran";
  unlink(blocker.c_str());
  unlink(marker.c_str());
  rmdir(dir);
}

TEST(Helper, AnswersAMissingProgramWithSpawnError) {
  helper_client h;
  h.next();
  h.send(16, 3, std::string("spawnhost-no-such-program"), std::vector<std::string>{}, no_options());
  EXPECT_EQ(h.next(), json::parse(R"([3, 3, "ENOENT", "exec"])"));
}

TEST(Helper, AnswersMalformedMessagesAndKeepsServing) {
  helper_client h;
  h.next();
  h.send_raw(test::frame("\xc1"));                  // not MessagePack
  h.send(99, 1);                                    // unknown type
  h.send(19, 4, 15);                                // kill with a numeric signal
  h.send(19, 77, std::string("SIGTERM"));           // unknown child
  for (const char* category : {"not_msgpack", "unknown_message", "bad_field", "unknown child id 77"}) {
    json e = h.next();
    ASSERT_EQ(e[0], 9) << e;
    EXPECT_EQ(e[2], false);
    EXPECT_NE(e[3].get<std::string>().find(category), std::string::npos) << e;
  }
  h.send(16, 8, std::string("true"), std::vector<std::string>{}, no_options());
  EXPECT_EQ(h.next()[0], 2);
}

TEST(Helper, EndsCleanlyAfterAnOversizedFrame) {
  helper_client h;
  h.next();
  h.send_raw(std::string("\xff\xff\xff\xff", 4));
  json e = h.next();
  EXPECT_EQ(e[0], 9);
  EXPECT_EQ(e[2], true);
  EXPECT_TRUE(h.next().is_null());  // stdout closed
  EXPECT_EQ(h.wait_exit().code, 0);
}

TEST(Helper, ReportsATruncatedFrameAtEndOfInput) {
  helper_client h;
  h.next();
  h.send_raw(std::string("\x10\x00\x00\x00\x95", 5));
  h.close_input();
  json e = h.next();
  EXPECT_EQ(e[2], true);
  EXPECT_NE(e[3].get<std::string>().find("truncated"), std::string::npos);
  EXPECT_EQ(h.wait_exit().code, 0);
}

TEST(Helper, EndOfInputTerminatesRunningChildrenAndExits) {
  helper_client h;
  h.next();
  h.send(16, 1, std::string("sleep"), std::vector<std::string>{"30"}, no_options());
  json spawned = h.next();
  ASSERT_EQ(spawned[0], 2);
  const int pid = spawned[2];
  const auto t0 = std::chrono::steady_clock::now();
  h.close_input();
  EXPECT_EQ(h.next_of(6), json::parse(R"([6, 1, null, "SIGTERM", 0])"));
  EXPECT_EQ(h.wait_exit().code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  EXPECT_NE(kill(pid, 0), 0);  // reaped and gone
}

TEST(Helper, ChildThatIgnoresTheKillSignalGetsSigkillAfterTheGracePeriod) {
  helper_client h;
  h.next();
  h.send(16, 1, std::string("sh"), std::vector<std::string>{"-c", "trap '' TERM; echo ready; sleep 30"}, no_options());
  EXPECT_EQ(h.next_of(4)[0], 4);  // "ready": the trap is set
  h.close_input();
  EXPECT_EQ(h.next_of(6), json::parse(R"([6, 1, null, "SIGKILL", 0])"));
  EXPECT_EQ(h.wait_exit().code, 0);
}

TEST(Helper, OutputIsReadOnlyWithCredit) {
  helper_client h;
  h.next();
  std::map<std::string, int> options{{"credit", 3}};
  h.send(16, 2, std::string("printf"), std::vector<std::string>{"abcdefgh"}, options);
  EXPECT_EQ(h.next()[0], 2);
  json first = h.next_of(4);
  EXPECT_EQ(test::unhex(first[3]["$bin"]), "abc");
  h.send(20, 2, 1, 100);
  json second = h.next_of(4);
  EXPECT_EQ(test::unhex(second[3]["$bin"]), "defgh");
}

TEST(Helper, MaxBufferKeepsExactlyTheCapAndKills) {
  helper_client h;
  h.next();
  std::map<std::string, int> options{{"max_buffer", 4}};
  h.send(16, 2, std::string("sh"), std::vector<std::string>{"-c", "printf 0123456789; sleep 30"}, options);
  std::string out;
  json exit_msg;
  for (json m = h.next(); !m.is_null(); m = h.next()) {
    if (m[0] == 4) out += test::unhex(m[3]["$bin"]);
    if (m[0] == 6) { exit_msg = m; break; }
  }
  EXPECT_EQ(out, "0123");
  EXPECT_EQ(exit_msg, json::parse(R"([6, 2, null, "SIGTERM", 2])"));
}

}  // namespace
}  // namespace spawnhost

namespace spawnhost {
namespace {

TEST(Helper, ClosingAnOutputEndsTheWriter) {
  helper_client h;
  h.next();
  std::map<std::string, int> options{{"credit", 1}};
  h.send(16, 4, std::string("yes"), std::vector<std::string>{}, options);
  EXPECT_EQ(h.next()[0], 2);
  EXPECT_EQ(h.next_of(4)[0], 4);  // one byte of credit, one byte of output
  h.send(23, 4, 1);
  EXPECT_EQ(h.next_of(5), json::parse("[5, 4, 1]"));
  // Output is a socketpair, as with Node: with unread bytes left in it, the writer
  // gets ECONNRESET (yes exits 1) rather than EPIPE (SIGPIPE). Either way it ends.
  const json exit_msg = h.next_of(6);
  EXPECT_TRUE(exit_msg == json::parse(R"([6, 4, null, "SIGPIPE", 0])") || exit_msg == json::parse("[6, 4, 1, null, 0]"))
      << exit_msg;
}

TEST(Helper, MaxBufferZeroAllowsNoOutput) {
  helper_client h;
  h.next();
  std::map<std::string, int> options{{"max_buffer", 0}};
  h.send(16, 2, std::string("sh"), std::vector<std::string>{"-c", "printf x; sleep 30"}, options);
  EXPECT_EQ(h.next()[0], 2);
  json m = h.next();
  while (!m.is_null() && m[0] != 6) {
    EXPECT_NE(m[0], 4) << "no data may be relayed: " << m;
    m = h.next();
  }
  EXPECT_EQ(m, json::parse(R"([6, 2, null, "SIGTERM", 2])"));
}

TEST(Helper, AnErrorAboutIdZeroCarriesNil) {
  helper_client h;
  h.next();
  h.send(18, 0);
  json e = h.next();
  EXPECT_EQ(e[0], 9);
  EXPECT_TRUE(e[1].is_null()) << e;
}

}  // namespace
}  // namespace spawnhost

namespace spawnhost {
namespace {

// Stream fd 3 of a child started with an IPC channel, until its eof.
std::string channel_bytes_until_eof(helper_client& h, json& sent_ack) {
  std::string got;
  for (json m = h.next(); !m.is_null(); m = h.next()) {
    if (m[0] == 11) sent_ack = m;
    if (m[0] == 4 && m[2] == 3) got += test::unhex(m[3]["$bin"]);
    if (m[0] == 5 && m[2] == 3) break;
  }
  return got;
}

TEST(Helper, RelaysAnIpcChannelOnFd3BothWays) {
  helper_client h;
  h.next();
  std::map<std::string, bool> options{{"ipc", true}};
  h.send(16, 6, std::string("sh"), std::vector<std::string>{"-c", "read line <&3; echo \"got:$line\" >&3"}, options);
  EXPECT_EQ(h.next()[0], 2);
  h.send(24, 6, msgpack::type::raw_ref("hello\n", 6));
  json sent_ack;
  EXPECT_EQ(channel_bytes_until_eof(h, sent_ack), "got:hello\n");
  EXPECT_EQ(sent_ack, json::parse("[11, 6, 6]"));
  EXPECT_EQ(h.next_of(6), json::parse("[6, 6, 0, null, 0]"));
}

// send_quiet's acknowledgement waits for a prompt one, which then covers both: the
// child reads two lines, so both were written, yet only one `sent` comes, for 8 bytes.
// The channel's end flushes a held one before its eof.
TEST(Helper, QuietSendsAreAcknowledgedWithTheNextPromptOneOrBeforeTheChannelsEof) {
  helper_client h;
  h.next();
  std::map<std::string, bool> options{{"ipc", true}};
  h.send(16, 8, std::string("sh"), std::vector<std::string>{"-c", "read a <&3; read b <&3; echo \"$a$b\" >&3; read c <&3"}, options);
  EXPECT_EQ(h.next()[0], 2);
  h.send(40, 8, msgpack::type::raw_ref("one\n", 4));
  h.send(24, 8, msgpack::type::raw_ref("two\n", 4));
  h.send(40, 8, msgpack::type::raw_ref("end\n", 4));
  std::vector<json> acks;
  std::string channel;
  bool eof_after_acks = false;
  for (json m = h.next(); !m.is_null() && m[0] != 6; m = h.next()) {
    if (m[0] == 11) acks.push_back(m);
    if (m[0] == 4 && m[2] == 3) channel += test::unhex(m[3]["$bin"]);
    if (m[0] == 5 && m[2] == 3) eof_after_acks = acks.size() == 2;
  }
  EXPECT_EQ(channel, "onetwo\n");
  ASSERT_EQ(acks.size(), 2u);
  EXPECT_EQ(acks[0], json::parse("[11, 8, 8]"));
  EXPECT_EQ(acks[1], json::parse("[11, 8, 4]"));  // the last quiet one, held until the channel ended
  EXPECT_TRUE(eof_after_acks);
}

TEST(Helper, ClosingTheChannelWritesQueuedSendsFirstThenTheChildSeesEof) {
  helper_client h;
  h.next();
  std::map<std::string, bool> options{{"ipc", true}};
  // The child reports what it read from the channel until EOF, on stdout.
  h.send(16, 7, std::string("sh"), std::vector<std::string>{"-c", "cat <&3"}, options);
  EXPECT_EQ(h.next()[0], 2);
  h.send(24, 7, msgpack::type::raw_ref("one\n", 4));
  h.send(24, 7, msgpack::type::raw_ref("two\n", 4));
  h.send(23, 7, 3);
  std::string out;
  for (json m = h.next(); !m.is_null() && m[0] != 6; m = h.next()) {
    if (m[0] == 4 && m[2] == 1) out += test::unhex(m[3]["$bin"]);
  }
  EXPECT_EQ(out, "one\ntwo\n");
}

}  // namespace
}  // namespace spawnhost

namespace spawnhost {
namespace {

TEST(Helper, AChildsLastChannelBytesAndEofComeBeforeItsExit) {
  for (int round = 0; round < 20; ++round) {
    helper_client h;
    h.next();
    std::map<std::string, bool> options{{"ipc", true}};
    h.send(16, 9, std::string("sh"), std::vector<std::string>{"-c", "echo bye >&3"}, options);
    EXPECT_EQ(h.next()[0], 2);
    std::vector<std::string> order;
    for (json m = h.next(); !m.is_null(); m = h.next()) {
      if (m[0] == 4 && m[2] == 3) order.push_back("data");
      if (m[0] == 5 && m[2] == 3) order.push_back("eof");
      if (m[0] == 6) {
        order.push_back("exit");
        break;
      }
    }
    ASSERT_EQ(order, (std::vector<std::string>{"data", "eof", "exit"})) << "round " << round;
  }
}

}  // namespace
}  // namespace spawnhost

namespace spawnhost {
namespace {

TEST(Helper, MaxBufferIsJudgedOnAllOutputEvenWhenTheExitIsSeenFirst) {
  // echo exits at once: its pidfd and its output are often ready in the same loop turn.
  helper_client h;
  h.next();
  std::map<std::string, int> options{{"max_buffer", 0}};
  for (int id = 1; id <= 40; ++id) {
    h.send(16, id, std::string("echo"), std::vector<std::string>{"x"}, options);
    // Killed (SIGTERM) if the output was read first, exit 0 if the exit was: the flag either way.
    EXPECT_EQ(h.next_of(6)[4], 2) << "launch " << id;
  }
}

}  // namespace
}  // namespace spawnhost
