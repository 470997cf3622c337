#include "launch/launch_pool.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <system_error>

namespace spawnhost {

thread_local launch_pool* launch_pool::current_pool_ = nullptr;
thread_local launch_pool::worker* launch_pool::current_worker_ = nullptr;

launch_pool::launch_pool(std::size_t base, std::size_t cap, std::chrono::milliseconds idle,
                         std::chrono::microseconds in_order_for)
    : base_(base), cap_(std::max(base, cap)), idle_time_(idle), in_order_for_(in_order_for) {
  std::lock_guard lock(mutex_);
  while (workers_.size() < base_ && start_thread()) {
  }
  if (workers_.size() < base_) {
    std::fprintf(stderr, "spawnhost-helper: started %zu of %zu launch threads (the system refused more)\n",
                 workers_.size(), base_);
  }
}

launch_pool::~launch_pool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  // Once stopping, no thread retires or leaves the list: each only ends.
  for (auto& w : workers_) w.thread.join();
  join_retired();
}

bool launch_pool::start_thread() noexcept {
  try {
    auto& w = workers_.emplace_back();
    w.permanent = permanent_ < base_;
    try {
      w.thread = std::thread([this, &w] { run(w); });
    } catch (const std::system_error&) {  // EAGAIN: out of threads or processes for this user
      workers_.pop_back();
      if (!refusal_told_ && permanent_ >= base_) {
        std::fprintf(stderr, "spawnhost-helper: the system refused a launch thread; launches wait for the %zu running\n",
                     workers_.size());
      }
      refusal_told_ = true;
      return false;
    }
    if (w.permanent) ++permanent_;
    ++waiting_;
    return true;
  } catch (const std::bad_alloc&) {
    return false;
  }
}

bool launch_pool::submit(std::function<void()> job) {
  join_retired();
  {
    std::lock_guard lock(mutex_);
    // With no thread at all, try again now: the limit that refused it may have eased.
    if (workers_.empty() && !start_thread()) return false;
    jobs_.push_back(std::move(job));
    // Every thread is busy (slow launches hold them): one more, so this job need not
    // wait for them. A refusal leaves it queued for the threads there are.
    if (waiting_ < jobs_.size() && workers_.size() < cap_) start_thread();
  }
  wake_.notify_one();
  return true;
}

std::size_t launch_pool::size() {
  std::lock_guard lock(mutex_);
  return workers_.size();
}

launch_pool::pin launch_pool::pin_current_thread() noexcept {
  // Base threads never retire: nothing to hold, and no lock to take per launch.
  if (!current_worker_ || current_worker_->permanent) return {};
  std::lock_guard lock(current_pool_->mutex_);
  ++current_worker_->pins;
  return pin(current_pool_, current_worker_);
}

launch_pool::pin& launch_pool::pin::operator=(pin&& other) noexcept {
  if (this != &other) {
    reset();
    pool_ = other.pool_;
    worker_ = other.worker_;
    other.pool_ = nullptr;
  }
  return *this;
}

void launch_pool::pin::reset() noexcept {
  if (!pool_) return;
  bool free;
  {
    std::lock_guard lock(pool_->mutex_);
    free = --worker_->pins == 0;
  }
  // The thread waits without a deadline while pinned: start its idle time now.
  if (free) pool_->wake_.notify_all();
  pool_ = nullptr;
}

bool launch_pool::wait_for_job(std::unique_lock<std::mutex>& lock, worker& self) {
  const auto has_work = [this] { return stopping_ || !jobs_.empty(); };
  if (self.permanent) {
    wake_.wait(lock, has_work);
    return true;
  }
  // Pins are taken only by this thread during a job: while it waits they can only fall.
  for (;;) {
    if (has_work()) return true;
    if (self.pins > 0) {
      wake_.wait(lock);
    } else if (!wake_.wait_for(lock, idle_time_, has_work) && self.pins == 0) {
      return false;
    }
  }
}

void launch_pool::run(worker& self) {
  current_pool_ = this;
  current_worker_ = &self;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!wait_for_job(lock, self)) {
      // Idle for idle_time_ and no child depends on this thread: retire. Someone else
      // joins it; its entry leaves the list now, so `self` is gone after this.
      --waiting_;
      retired_.push_back(std::move(self.thread));
      workers_.remove_if([&self](const worker& w) { return &w == &self; });
      return;
    }
    if (jobs_.empty()) return;  // stopping, and nothing left to do
    if (!may_start_next(lock)) continue;
    --waiting_;
    const std::uint64_t number = ++last_started_;
    last_started_at_ = std::chrono::steady_clock::now();
    last_running_ = true;
    {
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
    }  // the job's captures go before the lock is taken again
    lock.lock();
    ++waiting_;
    if (number == last_started_) {
      last_running_ = false;
      if (gated_ > 0) wake_.notify_all();  // threads wait for this one's end
    }
  }
}

bool launch_pool::may_start_next(std::unique_lock<std::mutex>& lock) {
  // Kept while stopping too: the jobs queued before the end still run, in order.
  if (!last_running_ || in_order_for_.count() == 0) return true;
  const auto until = last_started_at_ + in_order_for_;
  if (std::chrono::steady_clock::now() >= until) return true;  // a slow one: the next goes beside it
  // Until that job ends, or another thread starts the next one (then this one's turn
  // is looked at again from the top, with the job started last).
  const std::uint64_t waiting_for = last_started_;
  ++gated_;
  wake_.wait_until(lock, until, [this, waiting_for] { return !last_running_ || last_started_ != waiting_for; });
  --gated_;
  return false;
}

void launch_pool::join_retired() {
  std::vector<std::thread> ended;
  {
    std::lock_guard lock(mutex_);
    ended.swap(retired_);
  }
  for (auto& t : ended) t.join();
}

}  // namespace spawnhost
