// The platform launcher on its own: what the child gets, and how failures come back.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "launch/process.hpp"

namespace spawnhost {
namespace {

const launch_context no_inherit;

// As in the helper: SIGPIPE is ignored before the first launch (the launcher reads the
// dispositions it must reset once), and the children must still see it at default.
const bool sigpipe_ignored = (signal(SIGPIPE, SIG_IGN), true);

struct run_result {
  launched_process process;
  std::string out, err;
  exit_status status;
};

std::string drain(unique_fd& fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while (fd && (n = read(fd.get(), buf, sizeof buf)) > 0) s.append(buf, static_cast<std::size_t>(n));
  return s;
}

spawn_request request(std::string file, std::vector<std::string> args = {}) {
  spawn_request r;
  r.id = 1;
  r.file = std::move(file);
  r.args = std::move(args);
  return r;
}

run_result run(const spawn_request& r) {
  run_result out{launch_process(r, no_inherit), {}, {}, {}};
  if (out.process.error) return out;
  out.process.stdio[0].reset();
  out.out = drain(out.process.stdio[1]);
  out.err = drain(out.process.stdio[2]);
  EXPECT_FALSE(reap_process(out.process.pid, out.process.exit_handle.get(), out.status));
  return out;
}

TEST(Launcher, RunsAProgramFoundOnPathAndRelaysItsOutput) {
  auto r = run(request("echo", {"hello", "", "world"}));
  ASSERT_FALSE(r.process.error) << r.process.error.message();
  EXPECT_EQ(r.out, "hello  world\n");
  EXPECT_EQ(r.status.code, 0);
}

TEST(Launcher, ReportsAMissingProgramAsEnoentFromExec) {
  auto r = run(request("spawnhost-no-such-program"));
  EXPECT_EQ(r.process.error.value(), ENOENT);
  EXPECT_STREQ(r.process.stage, "exec");
  EXPECT_STREQ(errno_name(r.process.error.value()), "ENOENT");
}

TEST(Launcher, ReportsANonExecutableFileAsEacces) {
  char path[] = "/tmp/spawnhost-noexec-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  auto r = run(request(path));
  unlink(path);
  EXPECT_EQ(r.process.error.value(), EACCES);
}

TEST(Launcher, ReportsADirectoryAsEacces) {
  auto r = run(request("/tmp"));
  EXPECT_EQ(r.process.error.value(), EACCES);
}

TEST(Launcher, ReportsAMissingWorkingDirectoryFromChdir) {
  auto req = request("true");
  req.options.cwd = "/nonexistent/spawnhost";
  auto r = run(req);
  EXPECT_EQ(r.process.error.value(), ENOENT);
  EXPECT_STREQ(r.process.stage, "chdir");
}

TEST(Launcher, ReportsExitCodes) {
  for (int code : {0, 1, 3, 127, 255}) {
    auto r = run(request("sh", {"-c", "exit " + std::to_string(code)}));
    EXPECT_EQ(r.status.code, code);
    EXPECT_EQ(r.status.signal, 0);
  }
}

TEST(Launcher, ReportsTheSignalThatEndedTheChild) {
  auto r = run(request("sh", {"-c", "kill -TERM $$"}));
  EXPECT_FALSE(r.status.code.has_value());
  EXPECT_EQ(r.status.signal, SIGTERM);
  EXPECT_EQ(signal_name(r.status.signal), "SIGTERM");
}

TEST(Launcher, SignalsAChildThroughItsExitHandle) {
  auto req = request("sleep", {"30"});
  auto p = launch_process(req, no_inherit);
  ASSERT_FALSE(p.error);
  EXPECT_FALSE(signal_process(p.pid, p.exit_handle.get(), SIGKILL));
  exit_status status;
  EXPECT_FALSE(reap_process(p.pid, p.exit_handle.get(), status));
  EXPECT_EQ(status.signal, SIGKILL);
}

TEST(Launcher, GivesTheChildExactlyTheEnvironmentAsked) {
  auto req = request("/usr/bin/env");
  req.options.env = std::vector<std::string>{"A=1", "B=x=y", "EMPTY="};
  auto r = run(req);
  EXPECT_EQ(r.out, "A=1\nB=x=y\nEMPTY=\n");
}

TEST(Launcher, LooksProgramsUpInThePathOfTheChildsEnvironment) {
  auto req = request("echo");
  req.options.env = std::vector<std::string>{"PATH=/nonexistent"};
  EXPECT_EQ(run(req).process.error.value(), ENOENT);
}

TEST(Launcher, PassesArgv0) {
  auto req = request("sh", {"-c", "echo $0"});
  req.options.argv0 = "custom-name";
  EXPECT_EQ(run(req).out, "custom-name\n");
}

TEST(Launcher, ChildInheritsOnlyItsStdio) {
  unique_fd leak(open("/dev/null", O_RDONLY));  // not close-on-exec: must still not leak
  ASSERT_TRUE(leak);
  auto r = run(request("ls", {"/proc/self/fd"}));
  EXPECT_EQ(r.out, "0\n1\n2\n3\n");  // 3: the directory ls is reading
}

TEST(Launcher, ChildStartsWithDefaultSignalDispositionsAndAnEmptyMask) {
  ASSERT_TRUE(sigpipe_ignored);
  auto r = run(request("grep", {"-E", "^Sig(Ign|Blk)", "/proc/self/status"}));
  EXPECT_EQ(r.out, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST(Launcher, DetachedChildGetsItsOwnSession) {
  auto req = request("sh", {"-c", "cut -d' ' -f6 /proc/$$/stat; echo $$"});  // field 6: session id
  req.options.detached = true;
  auto r = run(req);
  const auto nl = r.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(0, nl), r.out.substr(nl + 1, r.out.size() - nl - 2));
}

TEST(Launcher, IgnoredStdioReadsAsEmpty) {
  auto req = request("cat");
  req.options.stdio = {protocol::stdio_kind::ignore, protocol::stdio_kind::pipe, protocol::stdio_kind::ignore};
  auto r = run(req);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.status.code, 0);
}

}  // namespace
}  // namespace spawnhost
