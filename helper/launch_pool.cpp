#include "launch_pool.hpp"

#include <cstdio>
#include <system_error>

namespace spawnhost {

launch_pool::launch_pool(std::size_t threads) {
  threads_.reserve(threads);
  while (threads_.size() < threads && start_thread()) {
  }
  if (threads_.size() < threads) {
    std::fprintf(stderr, "spawnhost-helper: started %zu of %zu launch threads (the system refused more)\n",
                 threads_.size(), threads);
  }
}

launch_pool::~launch_pool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

bool launch_pool::start_thread() noexcept {
  try {
    threads_.emplace_back([this] { run(); });
    return true;
  } catch (const std::system_error&) {  // EAGAIN: out of threads or processes for this user
    return false;
  }
}

bool launch_pool::submit(std::function<void()> job) {
  // With no thread at all, try again now: the limit that refused it may have eased.
  if (threads_.empty() && !start_thread()) return false;
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void launch_pool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to do
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace spawnhost
