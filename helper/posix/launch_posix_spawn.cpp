// The portable launcher (see launch_posix_spawn.hpp). Steps: make the child's stdio
// ends, describe the child in file actions and attributes, posix_spawn it once per
// PATH candidate (execvp's rules), then open its exit handle. posix_spawn reports a
// failed exec as its return value (glibc and macOS both wait for the exec), so no
// report pipe is needed here.
#include "posix/launch_posix_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "posix/launch_common.hpp"

extern char** environ;

namespace spawnhost {
namespace {

constexpr int channel_fd = 3;  // Node's children find their IPC channel here

// The child's end of each stdio entry, and ours for pipes; returns an errno and stage.
int make_stdio(const spawn_request& r, const launch_context& context, launched_process& out, unique_fd (&child_ends)[3],
               const char*& stage) {
  for (int fd = 0; fd < 3; ++fd) {
    switch (r.options.stdio[fd]) {
      case protocol::stdio_kind::pipe: {
        // A socketpair, as libuv gives Node's children (see process.cpp for why).
        int ends[2];
        if (posix_spawn_platform::cloexec_socketpair(ends) < 0) return stage = "pipe", errno;
        child_ends[fd].reset(ends[0]);
        out.stdio[fd].reset(ends[1]);
        break;
      }
      case protocol::stdio_kind::ignore: {
        const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0) return stage = "open", errno;
        child_ends[fd].reset(null_fd);
        break;
      }
      case protocol::stdio_kind::inherit:
      case protocol::stdio_kind::given: {
        // A copy above 2, so that dup2 onto 0-2 always moves it (a dup2 onto itself would
        // leave it close-on-exec).
        const int copy = copy_of_stdio_source(r, context, fd);
        if (copy < 0) return stage = "dup", errno;
        child_ends[fd].reset(copy);
        break;
      }
    }
  }
  return 0;
}

// What execve would say of `path` before trying it: 0 for a file this process may
// execute, else ENOENT/ENOTDIR (not there), EACCES (a directory, or no permission).
int exec_precheck(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) < 0) return errno;
  if (!S_ISREG(st.st_mode)) return EACCES;
  return access(path.c_str(), X_OK) < 0 ? errno : 0;
}

// Process group or session: as Node's children start.
int describe_attributes(const spawn_request& r, const launch_context& context, posix_spawnattr_t& attributes) {
  short flags = 0;
  if (int e = describe_signals(attributes, flags)) return e;
  if (r.options.detached) {
    flags |= POSIX_SPAWN_SETSID;
  } else if (context.process_group > 0) {
    // Into Node's process group, where child_process puts children (see process.cpp).
    flags |= POSIX_SPAWN_SETPGROUP;
    if (int e = posix_spawnattr_setpgroup(&attributes, context.process_group)) return e;
  }
  return posix_spawnattr_setflags(&attributes, flags);
}

// stdio onto 0-2, the IPC channel onto 3, everything else closed.
int describe_descriptors(posix_spawn_file_actions_t& actions, unique_fd (&child_ends)[3], unique_fd& channel,
                         const std::string& dir) {
  for (int fd = 0; fd < 3; ++fd) {
    if (int e = posix_spawn_file_actions_adddup2(&actions, child_ends[fd].get(), fd)) return e;
  }
  if (channel) {
    if (channel.get() == channel_fd) {  // dup2 onto itself would keep it close-on-exec
      const int moved = fcntl(channel.get(), F_DUPFD_CLOEXEC, channel_fd + 1);
      if (moved < 0) return errno;
      channel.reset(moved);
    }
    if (int e = posix_spawn_file_actions_adddup2(&actions, channel.get(), channel_fd)) return e;
  }
  if (int e = posix_spawn_platform::close_from(&actions, channel ? channel_fd + 1 : channel_fd)) return e;
  if (!dir.empty()) return posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  return 0;
}

// The signals whose disposition is not the default: ignored ones would survive exec.
// The helper sets its dispositions once, before the first launch, so they are read once.
const sigset_t& signals_to_reset() {
  static const sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    for (int n = 1; n < NSIG; ++n) {
      struct sigaction current {};
      if (n == SIGKILL || n == SIGSTOP || sigaction(n, nullptr, &current) < 0) continue;
      if (current.sa_handler != SIG_DFL) sigaddset(&s, n);
    }
    posix_spawn_platform::add_reserved_signals(s);
    return s;
  }();
  return set;
}

}  // namespace

int describe_signals(posix_spawnattr_t& attributes, short& flags) {
  flags |= POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | posix_spawn_platform::extra_flags();
  sigset_t none;
  sigemptyset(&none);
  if (int e = posix_spawnattr_setsigmask(&attributes, &none)) return e;
  return posix_spawnattr_setsigdefault(&attributes, &signals_to_reset());
}

// Its errors get the "chdir" stage, as the clone launcher's do. A cwd deleted between
// the check and the spawn is reported as exec's ENOENT: rare, and still the right code.
int choose_directory(const spawn_request& r, const launch_context& context, std::string& dir) {
  const std::string node_cwd = r.options.node_cwd && context.node_pid > 0
                                   ? posix_spawn_platform::process_cwd_path(context.node_pid)
                                   : std::string();
  if (!r.options.cwd) {
    dir = node_cwd;
    return 0;
  }
  struct stat st {};
  int error = stat(r.options.cwd->c_str(), &st) < 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
  if (error == 0 && access(r.options.cwd->c_str(), X_OK) < 0) error = errno;
  if (error == ENOENT && !node_cwd.empty()) {
    dir = node_cwd;
    return 0;
  }
  dir = *r.options.cwd;
  return error;
}

bool posix_spawn_launcher_chosen() noexcept {
  static const bool chosen = [] {
    const char* on = std::getenv("SPAWNHOST_HELPER_POSIX_SPAWN");
    return on && std::string_view(on) == "1";
  }();
  return chosen;
}

launched_process launch_with_posix_spawn(const spawn_request& r, const launch_context& context) noexcept {
  try {
    if (r.options.uid || r.options.gid) return launch_failure(r.options.uid ? "setuid" : "setgid", ENOTSUP);
    launched_process out;
    unique_fd child_ends[3];
    const char* stage = "";
    if (int e = make_stdio(r, context, out, child_ends, stage)) return launch_failure(stage, e);
    unique_fd child_channel;
    if (r.options.ipc && r.options.connected_channel >= 0) {
      // Node's own end is connected to it (ipc_connected): nothing of ours to relay.
      const int copy = fcntl(r.options.connected_channel, F_DUPFD_CLOEXEC, 3);
      if (copy < 0) return launch_failure("dup", errno);
      child_channel.reset(copy);
    } else if (r.options.ipc) {
      int ends[2];
      if (posix_spawn_platform::cloexec_socketpair(ends) < 0) return launch_failure("socketpair", errno);
      out.channel.reset(ends[0]);
      child_channel.reset(ends[1]);
    }
    std::string dir;
    if (int e = choose_directory(r, context, dir)) return launch_failure("chdir", e);

    spawn_description description;
    if (int e = describe_attributes(r, context, description.attributes)) return launch_failure("posix_spawnattr", e);
    if (int e = describe_descriptors(description.actions, child_ends, child_channel, dir)) return launch_failure("posix_spawn_file_actions", e);

    std::vector<std::string> argv_strings;
    argv_strings.reserve(r.args.size() + 1);
    argv_strings.push_back(r.options.argv0 ? *r.options.argv0 : r.file);
    argv_strings.insert(argv_strings.end(), r.args.begin(), r.args.end());
    const std::vector<char*> argv = c_strings(argv_strings);
    const std::vector<char*> envp = r.options.env ? c_strings(*r.options.env) : std::vector<char*>{};

    // execvp's rules: skip candidates where the file is missing, remember EACCES. Each
    // is checked here first, so that a PATH search costs one process, not one per
    // directory, and a missing program is ENOENT even where posix_spawn cannot report
    // a failed exec (qemu-user runs its CLONE_VFORK as a fork: the child exits 127).
    const auto t0 = std::chrono::steady_clock::now();
    pid_t pid = -1;
    int error = ENOENT;
    for (const std::string& candidate : candidate_paths(r)) {
      // A relative candidate is found from the directory the child starts in.
      const bool relative = candidate[0] != '/' && !dir.empty();
      if (const int unusable = exec_precheck(relative ? dir + "/" + candidate : candidate)) {
        if (unusable == EACCES) error = EACCES;
        else if (unusable != ENOENT && unusable != ENOTDIR) { error = unusable; break; }
        continue;
      }
      const int e = posix_spawn(&pid, candidate.c_str(), &description.actions, &description.attributes, argv.data(),
                                r.options.env ? envp.data() : environ);
      if (e == 0) { error = 0; break; }
      // glibc reaps a child whose exec failed; nothing to collect. ENOENT here (a script
      // whose interpreter is missing) goes on to the next candidate, as execvp does.
      if (e == EACCES) error = EACCES;
      else if (e != ENOENT && e != ENOTDIR) { error = e; break; }
    }
    out.create_us = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
    if (error) return launch_failure("exec", error);
    out.pid = pid;
    if (std::error_code e = posix_spawn_platform::open_exit_handle(pid, out.exit_handle)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      return launch_failure("exit_handle", e.value());
    }
    return out;
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

}  // namespace spawnhost
