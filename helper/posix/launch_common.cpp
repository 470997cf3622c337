#include "posix/launch_common.hpp"

#include <fcntl.h>
#include <signal.h>

#include <cstdlib>

namespace spawnhost {
namespace {

void clear_nonblocking(int fd) noexcept {
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0 && (flags & O_NONBLOCK)) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
}

// PATH as the child will see it: from its env when given, else the helper's.
std::string search_path(const spawn_request& r) {
  if (r.options.env) {
    for (const auto& kv : *r.options.env) {
      if (kv.rfind("PATH=", 0) == 0) return kv.substr(5);
    }
    return "/usr/bin:/bin";  // libuv's default when PATH is unset
  }
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/bin:/bin";
}

}  // namespace

std::vector<std::string> candidate_paths(const spawn_request& r) {
  if (r.file.find('/') != std::string::npos) return {r.file};
  std::vector<std::string> out;
  const std::string path = search_path(r);
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out.push_back(dir.empty() ? r.file : dir + "/" + r.file);  // empty entry: current directory
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int copy_of_stdio_source(const spawn_request& r, const launch_context& context, int fd) noexcept {
  const int source = r.options.stdio[fd] == protocol::stdio_kind::given ? r.options.given_fds[fd] : context.inherited[fd];
  const int copy = fcntl(source, F_DUPFD_CLOEXEC, 3);
  if (copy >= 0) clear_nonblocking(copy);
  return copy;
}

launched_process launch_failure(const char* stage, int error) {
  launched_process p;
  p.error = std::error_code(error, std::generic_category());
  p.stage = stage;
  return p;
}

const std::vector<int>& non_default_signals() {
  static const std::vector<int> list = [] {
    std::vector<int> out;
    for (int s = 1; s < NSIG; ++s) {
      struct sigaction current {};
      if (s == SIGKILL || s == SIGSTOP || sigaction(s, nullptr, &current) < 0) continue;
      if (current.sa_handler != SIG_DFL) out.push_back(s);
    }
    return out;
  }();
  return list;
}

}  // namespace spawnhost
