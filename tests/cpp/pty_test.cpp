// The Linux terminal launchers on their own: the clone one (helper/linux/pty_linux.cpp)
// and the posix_spawn one of macOS (helper/posix/pty_posix_spawn.cpp, through the
// helper binary's terminal trampoline), each test for both: the child's terminal, size,
// session and controlling tty; resize; refused combinations; failures.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "posix/launch_posix_spawn.hpp"
#include "pty/terminal.hpp"

namespace spawnhost {
namespace {

// A terminal launcher under test, with what it needs of the context.
struct launcher {
  const char* name;
  launched_process (*launch)(const spawn_request&, const launch_context&) noexcept;
  launch_context context;
};

void PrintTo(const launcher& l, std::ostream* os) { *os << l.name; }

launch_context trampoline_context() {
  launch_context c;
  c.helper_binary = SPAWNHOST_HELPER_PATH;  // not this test binary: it has no trampoline mode
  return c;
}

class Terminal : public testing::TestWithParam<launcher> {
 protected:
  launched_process launch(const spawn_request& r) const { return GetParam().launch(r, GetParam().context); }
};

INSTANTIATE_TEST_SUITE_P(Launchers, Terminal,
                         // launch_terminal is the clone launcher, or the posix_spawn one where
                         // SPAWNHOST_HELPER_POSIX_SPAWN=1 chooses it (CI's posix_spawn pass).
                         testing::Values(launcher{"chosen", launch_terminal, trampoline_context()},
                                         launcher{"posix_spawn", launch_terminal_with_posix_spawn, trampoline_context()}),
                         [](const auto& info) { return std::string(info.param.name); });

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

TEST_P(Terminal, TheChildLeadsASessionOnANewTerminalOfTheSizeAsked) {
  auto p = launch(terminal_request("stty size; test -t 0 && test -t 1 && test -t 2 && echo tty; "
                                    "[ $(cut -d' ' -f6 /proc/$$/stat) = $$ ] && echo leader; "
                                    "[ $(cut -d' ' -f8 /proc/$$/stat) = $$ ] && echo foreground; "
                                    "[ -e /proc/$$/fd/3 ] || echo 'nothing beyond stdio'"));
  ASSERT_FALSE(p.error) << p.stage << ": " << p.error.message();
  ASSERT_TRUE(p.terminal);
  EXPECT_EQ(read_terminal(p), "30 90\r\ntty\r\nleader\r\nforeground\r\nnothing beyond stdio\r\n");
  exit_status status;
  EXPECT_FALSE(reap_process(p.pid, p.exit_handle.get(), status));
  EXPECT_EQ(status.code, 0);
}

TEST_P(Terminal, ResizeReachesTheChildWithSigwinch) {
  auto p = launch(terminal_request("trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.01; done"));
  ASSERT_FALSE(p.error) << p.stage << ": " << p.error.message();
  ASSERT_NE(read_terminal(p, "ready\r\n").find("ready"), std::string::npos);
  EXPECT_FALSE(resize_terminal(p.terminal.get(), 132, 43));
  EXPECT_EQ(read_terminal(p), "43 132\r\n");
  exit_status status;
  EXPECT_FALSE(reap_process(p.pid, p.exit_handle.get(), status));
}

TEST_P(Terminal, RefusesStdioItCannotServeAndDetachedChildren) {
  auto piped = terminal_request("true");
  piped.options.stdio[2] = protocol::stdio_kind::pipe;
  auto detached = terminal_request("true");
  detached.options.detached = true;
  auto handed = terminal_request("true");
  handed.options.handover = true;  // a master must never reach Node as a piped end
  for (const auto& r : {piped, detached, handed}) {
    const auto p = launch(r);
    EXPECT_EQ(p.error.value(), EINVAL);
    EXPECT_STREQ(p.stage, "pty");
  }
}

TEST_P(Terminal, AMissingProgramIsEnoentFromExec) {
  auto r = terminal_request("");
  r.file = "/nonexistent/program";
  const auto p = launch(r);
  EXPECT_EQ(p.error.value(), ENOENT);
  EXPECT_STREQ(p.stage, "exec");
}

// The trampoline mode is only for the launcher's own argv: other arguments are the
// helper's (-1), and a malformed trampoline call is a usage error (2), never an exec.
TEST(TerminalTrampoline, TakesOnlyItsOwnArgumentsAndRefusesMalformedOnes) {
  const auto run = [](std::vector<std::string> words) {
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    return run_terminal_trampoline(static_cast<int>(words.size()), argv.data());
  };
  EXPECT_EQ(run({"helper", "--version"}), -1);
  EXPECT_EQ(run({"helper"}), -1);
  EXPECT_EQ(run({"helper", "--terminal-exec"}), 2);
  EXPECT_EQ(run({"helper", "--terminal-exec", "x", "/bin/true", "true"}), 2);
  EXPECT_EQ(run({"helper", "--terminal-exec", "0", "true"}), 2);
  EXPECT_EQ(run({"helper", "--terminal-exec", "2", "/bin/true", "true"}), 2);  // no argv0 after the candidates
}

}  // namespace
}  // namespace spawnhost
