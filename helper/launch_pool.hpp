// A fixed set of long-lived threads that run blocking jobs (process creation, tree
// removal) so the event loop never waits on them. Threads are never retired while the
// helper runs: a child's parent-death signal is tied to the thread that created it.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace spawnhost {

class launch_pool {
 public:
  // Starts up to `threads` threads. Where the system refuses some (RLIMIT_NPROC, a
  // thread limit), it runs with those it got and says so on stderr: a helper with one
  // launch thread serves everyone; one that aborted would take every call down with it.
  explicit launch_pool(std::size_t threads);
  ~launch_pool();  // finishes queued jobs, then joins
  launch_pool(const launch_pool&) = delete;
  launch_pool& operator=(const launch_pool&) = delete;

  // Runs `job` on a pool thread, in submission order. Jobs must not throw. Returns
  // false, without running it, when there is no thread and none can be started now.
  bool submit(std::function<void()> job);
  std::size_t size() const noexcept { return threads_.size(); }

 private:
  void run();
  bool start_thread() noexcept;  // false when the system refused

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace spawnhost
