// The threads that run blocking jobs (process creation, tree removal) so the event
// loop never waits on them. A few base threads live as long as the helper. When a job
// finds every thread busy, another thread starts, up to a cap: a launch that holds its
// thread for seconds (CreateProcessW under endpoint security) then costs one thread,
// not every other launch's turn. Those extra threads retire after an idle time, but
// never while a child they created depends on them: on Linux a child's parent-death
// signal (PR_SET_PDEATHSIG) fires when the *thread* that created it exits, so the
// launcher pins its thread for as long as such a child lives (launch_pool::pin).
//
// Jobs start in submission order, and with `in_order_for` one also waits, before it
// starts, for the job started before it to end, or to have run that long: launches a
// program makes one after the other are created in that order, as node:child_process's
// are (its spawn() returns once the child exists), while a slow creation still holds
// back the next for that long only (docs/decisions/launch-pool.md, "Launch order").
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

namespace spawnhost {

class launch_pool {
  struct worker;

 public:
  // Keeps a launch thread from retiring while it exists (movable, not copyable). Taken
  // on the thread itself, during a job; released on any thread. Every pin must be gone
  // before the pool is destroyed.
  class pin {
   public:
    pin() = default;
    pin(pin&& other) noexcept : pool_(other.pool_), worker_(other.worker_) { other.pool_ = nullptr; }
    pin& operator=(pin&& other) noexcept;
    ~pin() { reset(); }
    void reset() noexcept;
    explicit operator bool() const noexcept { return pool_ != nullptr; }

   private:
    friend class launch_pool;
    pin(launch_pool* pool, worker* w) : pool_(pool), worker_(w) {}
    launch_pool* pool_ = nullptr;
    worker* worker_ = nullptr;
  };

  // Starts `base` threads that never retire, and lets the pool grow to `cap` (at least
  // `base`) while jobs wait; an extra thread retires after `idle` without a job. Where
  // the system refuses threads (RLIMIT_NPROC, a thread limit), it runs with those it got
  // and says so on stderr: a helper with one launch thread serves everyone; one that
  // aborted would take every call down with it.
  // `in_order_for`: how long a job waits for the one started before it (0: no wait).
  launch_pool(std::size_t base, std::size_t cap, std::chrono::milliseconds idle,
              std::chrono::microseconds in_order_for = std::chrono::microseconds(0));
  explicit launch_pool(std::size_t threads) : launch_pool(threads, threads, std::chrono::milliseconds(0)) {}
  ~launch_pool();  // finishes queued jobs, then joins
  launch_pool(const launch_pool&) = delete;
  launch_pool& operator=(const launch_pool&) = delete;

  // Runs `job` on a pool thread, in submission order. Jobs must not throw. Returns
  // false, without running it, when there is no thread and none can be started now.
  bool submit(std::function<void()> job);
  std::size_t size();  // threads running now

  // Pins the calling thread when it is one of a pool's threads; an empty pin elsewhere.
  static pin pin_current_thread() noexcept;

 private:
  struct worker {
    std::thread thread;
    std::size_t pins = 0;
    bool permanent = false;
  };

  void run(worker& self);
  bool start_thread() noexcept;  // under mutex_; false when the system refused
  bool wait_for_job(std::unique_lock<std::mutex>& lock, worker& self);  // false: retire
  // Under mutex_: false after waiting a while for the job started last (see in_order_for).
  bool may_start_next(std::unique_lock<std::mutex>& lock);
  void join_retired();

  static thread_local launch_pool* current_pool_;
  static thread_local worker* current_worker_;

  const std::size_t base_, cap_;
  const std::chrono::milliseconds idle_time_;
  const std::chrono::microseconds in_order_for_;
  // The job started last: its number, when it started, and whether it still runs.
  std::uint64_t last_started_ = 0;
  std::chrono::steady_clock::time_point last_started_at_;
  bool last_running_ = false;
  std::size_t gated_ = 0;  // threads waiting in may_start_next
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  bool refusal_told_ = false;
  std::size_t waiting_ = 0;    // threads not running a job (waiting, or just started)
  std::size_t permanent_ = 0;  // base threads started so far
  std::list<worker> workers_;  // a list: pins point into it
  std::vector<std::thread> retired_;  // ended threads, joined by the next submit or the destructor
};

}  // namespace spawnhost
