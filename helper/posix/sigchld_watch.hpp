// Exit detection for kernels without pidfd (Linux < 5.3): one SIGCHLD handler per
// io_context (an asio service) checks which watched children have exited. The check
// uses WNOWAIT, so a child stays a zombie, its PID pinned, until exit_watch::reap.
#pragma once
#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>

#include <functional>
#include <system_error>
#include <unordered_map>

namespace spawnhost {

class sigchld_watch : public asio::execution_context::service {
 public:
  using key_type = sigchld_watch;
  static inline asio::execution_context::id id;

  explicit sigchld_watch(asio::execution_context& context);

  // Calls `done` on the io_context once `pid` (our child) has exited, maybe already.
  void when_exited(int pid, std::function<void(std::error_code)> done);
  void forget(int pid) noexcept { waiting_.erase(pid); }

 private:
  void shutdown() override;
  void wait_for_signal();
  void check_all();

  asio::io_context& io_;
  asio::signal_set signals_;
  std::unordered_map<int, std::function<void(std::error_code)>> waiting_;
};

}  // namespace spawnhost
