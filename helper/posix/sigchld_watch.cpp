#include "posix/sigchld_watch.hpp"

#include <sys/wait.h>

#include <asio/post.hpp>
#include <csignal>
#include <vector>

namespace spawnhost {
namespace {

// True once `pid` has exited; it is left unreaped.
bool has_exited(int pid) noexcept {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

}  // namespace

sigchld_watch::sigchld_watch(asio::execution_context& context)
    : service(context), io_(static_cast<asio::io_context&>(context)), signals_(io_, SIGCHLD) {
  wait_for_signal();
}

void sigchld_watch::when_exited(int pid, std::function<void(std::error_code)> done) {
  waiting_[pid] = std::move(done);
  // It may have exited before it was watched, its SIGCHLD long handled: check it alone
  // (checking all here would make starting n children cost O(n^2) waitid calls).
  asio::post(io_, [this, pid] {
    const auto it = waiting_.find(pid);
    if (it == waiting_.end() || !has_exited(pid)) return;
    auto ready = std::move(it->second);
    waiting_.erase(it);
    ready({});
  });
}

void sigchld_watch::wait_for_signal() {
  signals_.async_wait([this](std::error_code ec, int) {
    if (ec) return;  // cancelled at shutdown
    check_all();
    wait_for_signal();
  });
}

void sigchld_watch::check_all() {
  // Signals coalesce: one SIGCHLD may stand for many exits, so every watched child is
  // checked (the fallback is O(children) per signal; pidfd makes it O(1)).
  std::vector<std::function<void(std::error_code)>> ready;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (has_exited(it->first)) {
      ready.push_back(std::move(it->second));
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& done : ready) done({});
}

void sigchld_watch::shutdown() {
  waiting_.clear();
  std::error_code ignored;
  signals_.cancel(ignored);
}

}  // namespace spawnhost
