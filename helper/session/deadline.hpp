// The call's deadline (the spawn option timeout_ms) on the helper's side: the one unit
// that reads it. Node's thread keeps its own timers (js/src/core/deadline.js); this
// side's two rules hold even while Node's thread is busy:
// - a launch still waiting for a launch thread when its deadline has passed never
//   starts (its caller has been told it timed out);
// - a running child is ended at its deadline (the child's kill, then SIGKILL after
//   the grace period).
#pragma once
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <utility>

#include "protocol/messages.hpp"

namespace spawnhost {

class deadline {
 public:
  deadline(asio::io_context& io, const spawn_options& options) : timer_(io), ms_(options.timeout_ms) {}

  // True when a launch queued `queued_us` ago has passed its deadline. A blocking call's
  // launch never has: Node's spawnSync always creates the child, and its timeout counts
  // from there, so a missing program is ENOENT whatever the wait.
  static bool passed_in_queue(const spawn_options& options, std::uint64_t queued_us, bool blocking) {
    return !blocking && options.timeout_ms && queued_us >= options.timeout_ms * 1000;
  }

  // Arms the running child's deadline: `passed()` once it is reached, unless cancelled.
  template <typename Handler>
  void start(Handler passed) {
    if (!ms_) return;
    timer_.expires_after(std::chrono::milliseconds(ms_));
    timer_.async_wait([passed = std::move(passed)](std::error_code ec) {
      if (!ec) passed();
    });
  }

  void cancel() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
  const std::uint64_t ms_;
};

}  // namespace spawnhost
