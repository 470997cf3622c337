// The Linux terminal launcher on its own (helper/posix/pty_linux.cpp): the child's
// terminal, size, session and controlling tty; resize; refused combinations.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pty/terminal.hpp"

namespace spawnhost {
namespace {

const launch_context no_context;

spawn_request terminal_request(std::string script, std::uint16_t cols = 90, std::uint16_t rows = 30) {
  spawn_request r;
  r.id = 1;
  r.file = "/bin/sh";
  r.args = {"-c", std::move(script)};
  r.options.stdio = {protocol::stdio_kind::pipe, protocol::stdio_kind::pipe, protocol::stdio_kind::ignore};
  r.options.pty = std::array<std::uint16_t, 2>{cols, rows};
  return r;
}

// What the terminal shows until every holder of its slave side closed it (EIO), or
// until `until` appears; at most 10 s (then the child is killed: the test fails, never hangs).
std::string read_terminal(const launched_process& p, const std::string& until = {}) {
  std::string out;
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    if (!until.empty() && out.find(until) != std::string::npos) return out;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(p.pid, SIGKILL);
      ADD_FAILURE() << "the terminal did not end; it showed: " << out;
      return out;
    }
    const ssize_t n = read(p.stdio[1].get(), buffer, sizeof buffer);
    if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EAGAIN) usleep(1000);
    else return out;
  }
}

TEST(Terminal, TheChildLeadsASessionOnANewTerminalOfTheSizeAsked) {
  auto p = launch_terminal(terminal_request("stty size; test -t 0 && test -t 1 && test -t 2 && echo tty; "
                                            "[ $(cut -d' ' -f6 /proc/$$/stat) = $$ ] && echo leader; "
                                            "[ $(cut -d' ' -f8 /proc/$$/stat) = $$ ] && echo foreground"),
                           no_context);
  ASSERT_FALSE(p.error) << p.stage << ": " << p.error.message();
  ASSERT_TRUE(p.terminal);
  EXPECT_EQ(read_terminal(p), "30 90\r\ntty\r\nleader\r\nforeground\r\n");
  exit_status status;
  EXPECT_FALSE(reap_process(p.pid, p.exit_handle.get(), status));
  EXPECT_EQ(status.code, 0);
}

TEST(Terminal, ResizeReachesTheChildWithSigwinch) {
  auto p = launch_terminal(terminal_request("trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.01; done"), no_context);
  ASSERT_FALSE(p.error) << p.stage << ": " << p.error.message();
  ASSERT_NE(read_terminal(p, "ready\r\n").find("ready"), std::string::npos);
  EXPECT_FALSE(resize_terminal(p.terminal.get(), 132, 43));
  EXPECT_EQ(read_terminal(p), "43 132\r\n");
  exit_status status;
  EXPECT_FALSE(reap_process(p.pid, p.exit_handle.get(), status));
}

TEST(Terminal, RefusesStdioItCannotServeAndDetachedChildren) {
  auto piped = terminal_request("true");
  piped.options.stdio[2] = protocol::stdio_kind::pipe;
  auto detached = terminal_request("true");
  detached.options.detached = true;
  auto handed = terminal_request("true");
  handed.options.handover = true;  // a master must never reach Node as a piped end
  for (const auto& r : {piped, detached, handed}) {
    const auto p = launch_terminal(r, no_context);
    EXPECT_EQ(p.error.value(), EINVAL);
    EXPECT_STREQ(p.stage, "pty");
  }
}

TEST(Terminal, AMissingProgramIsEnoentFromExec) {
  auto r = terminal_request("");
  r.file = "/nonexistent/program";
  const auto p = launch_terminal(r, no_context);
  EXPECT_EQ(p.error.value(), ENOENT);
  EXPECT_STREQ(p.stage, "exec");
}

}  // namespace
}  // namespace spawnhost
