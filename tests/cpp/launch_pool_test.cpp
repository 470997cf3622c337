// The launch pool: jobs run on its threads, all of them, concurrently; it grows while
// jobs wait, up to its cap, and its extra threads retire when idle, but never while a
// child tied to them lives. Built under TSan in CI, where the concurrent tests matter.
#include "launch/launch_pool.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "posix/launch_posix_spawn.hpp"
#include "launch/process.hpp"

namespace spawnhost {
namespace {

TEST(LaunchPool, RunsEveryJobBeforeItIsDestroyed) {
  std::atomic<int> done{0};
  {
    launch_pool pool(3);
    for (int i = 0; i < 1000; ++i) pool.submit([&] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 1000);
}

TEST(LaunchPool, RunsJobsOnSeveralThreadsAtOnce) {
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::set<std::thread::id> ids;
  {
    launch_pool pool(2);
    for (int i = 0; i < 2; ++i) {
      pool.submit([&] {
        std::unique_lock lock(m);
        ids.insert(std::this_thread::get_id());
        ++arrived;
        cv.notify_all();
        // Both jobs must be inside at the same time, or this waits forever (test timeout).
        cv.wait(lock, [&] { return arrived == 2; });
      });
    }
  }
  EXPECT_EQ(ids.size(), 2u);
}

// With in_order_for, a job starts once the one started before it has ended: launches
// are created in the order they were asked for, as node:child_process creates them.
TEST(LaunchPool, AJobWaitsForTheOneStartedBeforeIt) {
  std::mutex m;
  std::vector<std::pair<int, bool>> events;  // (job, started?) in the order they happened
  {
    launch_pool pool(4, 4, std::chrono::milliseconds(0), std::chrono::seconds(10));
    for (int job = 0; job < 6; ++job) {
      pool.submit([&, job] {
        { std::lock_guard lock(m); events.emplace_back(job, true); }
        std::this_thread::sleep_for(std::chrono::milliseconds(job % 2 ? 1 : 20));
        std::lock_guard lock(m);
        events.emplace_back(job, false);
      });
    }
  }
  std::vector<std::pair<int, bool>> in_order;
  for (int job = 0; job < 6; ++job) in_order.insert(in_order.end(), {{job, true}, {job, false}});
  EXPECT_EQ(events, in_order);
}

// A slow job holds the next back only for in_order_for: the next starts beside it, so a
// creation held for seconds (Windows endpoint security) costs one thread, not the order
// of everything behind it.
TEST(LaunchPool, ASlowJobHoldsTheNextBackOnlyForInOrderFor) {
  using clock = std::chrono::steady_clock;
  std::atomic<bool> slow_done{false};
  std::atomic<long long> next_started_after_ms{-1};
  std::atomic<bool> next_saw_slow_done{true};
  const auto start = clock::now();
  {
    launch_pool pool(2, 2, std::chrono::milliseconds(0), std::chrono::milliseconds(30));
    pool.submit([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      slow_done = true;
    });
    pool.submit([&] {
      next_saw_slow_done = slow_done.load();
      next_started_after_ms = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start).count();
    });
  }
  EXPECT_FALSE(next_saw_slow_done.load()) << "the next job waited for the slow one's end";
  EXPECT_GE(next_started_after_ms.load(), 30) << "the next job did not wait for the one before it at all";
}

TEST(LaunchPool, LaunchesConcurrentlyWithoutLeakingDescriptorsBetweenChildren) {
  const launch_context none;
  std::atomic<int> clean{0}, total{0};
  {
    launch_pool pool(4);
    for (int i = 0; i < 40; ++i) {
      pool.submit([&] {
        spawn_request r;
        r.id = 1;
        r.file = "ls";  // lists its own descriptors: stdio, plus 3 for the listing itself
        r.args = {"/proc/self/fd"};
        auto p = launch_process(r, none);
        if (p.error) return;
        p.stdio[0].reset();
        char buf[64] = {};
        const ssize_t n = read(p.stdio[1].get(), buf, sizeof buf - 1);
        exit_status st;
        reap_process(p.pid, p.exit_handle.get(), st);
        total.fetch_add(1);
        if (n > 0 && std::string(buf) == "0\n1\n2\n3\n") clean.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(total.load(), 40);
  EXPECT_EQ(clean.load(), 40);
}

using namespace std::chrono_literals;

// Jobs that stay inside until released: what slow launches (CreateProcessW under
// endpoint security) do to the pool's threads.
struct gate {
  std::mutex m;
  std::condition_variable cv;
  int inside = 0, done = 0;
  bool open = false;
  std::function<void()> job() {
    return [this] {
      std::unique_lock lock(m);
      ++inside;
      cv.notify_all();
      cv.wait(lock, [this] { return open; });
      ++done;
      cv.notify_all();
    };
  }
  // Bounded, so that a pool that does not grow fails here instead of hanging.
  bool wait_inside(int n) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, 20s, [&] { return inside >= n; });
  }
  int inside_now() {
    std::lock_guard lock(m);
    return inside;
  }
  void release() {
    std::lock_guard lock(m);
    open = true;
    cv.notify_all();
  }
  bool wait_done(int n) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, 20s, [&] { return done >= n; });
  }
};

// Opens the gate when a test ends, before its pool joins: a failed test ends, not hangs.
struct opens_at_end {
  gate& g;
  ~opens_at_end() { g.release(); }
};

bool wait_for_size(launch_pool& pool, std::size_t n) {
  for (int i = 0; i < 2000 && pool.size() != n; ++i) std::this_thread::sleep_for(10ms);
  return pool.size() == n;
}

TEST(LaunchPool, SlowJobsRunAtOnceUpToTheCapAndTheNextWaits) {
  gate g;
  launch_pool pool(1, 3, 10s);
  const opens_at_end guard{g};
  EXPECT_EQ(pool.size(), 1u);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool.submit(g.job()));
  // One base thread, yet all three are inside together: the pool grew for them.
  ASSERT_TRUE(g.wait_inside(3));
  EXPECT_EQ(pool.size(), 3u);
  ASSERT_TRUE(pool.submit(g.job()));
  // The fourth is beyond the cap: no thread starts for it, and it cannot start
  // before one of the three is released, however long this waits.
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(g.inside_now(), 3);
  EXPECT_EQ(pool.size(), 3u);
  g.release();
  EXPECT_TRUE(g.wait_done(4));
}

TEST(LaunchPool, ExtraThreadsRetireWhenIdleAndTheBaseStays) {
  gate g, again;
  launch_pool pool(2, 5, 50ms);
  const opens_at_end guard{g};
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(pool.submit(g.job()));
  ASSERT_TRUE(g.wait_inside(5));
  EXPECT_EQ(pool.size(), 5u);
  g.release();
  ASSERT_TRUE(g.wait_done(5));
  EXPECT_TRUE(wait_for_size(pool, 2));
  std::this_thread::sleep_for(200ms);  // many idle times: the base threads never retire
  EXPECT_EQ(pool.size(), 2u);
  // And it grows again, with retired threads joined on the way.
  const opens_at_end guard_again{again};
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(pool.submit(again.job()));
  EXPECT_TRUE(again.wait_inside(4));
  again.release();
  EXPECT_TRUE(again.wait_done(4));
}

bool still_running(int pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

void end_child(launched_process& p) {
  kill(p.pid, SIGKILL);
  exit_status st;
  reap_process(p.pid, p.exit_handle.get(), st);
}

// Linux's PR_SET_PDEATHSIG follows the thread that created the child (linux/process.cpp):
// a launch thread that retired under a child would have it killed.
TEST(LaunchPool, AThreadDoesNotRetireUnderAChildTiedToIt) {
  // The posix_spawn launcher (SPAWNHOST_HELPER_POSIX_SPAWN=1, the macOS helper's) sets no
  // parent-death signal: nothing ties its children to the thread that made them.
  if (posix_spawn_launcher_chosen()) GTEST_SKIP() << "the posix_spawn launcher ties no child to its thread";
  launched_process tied, detached;
  std::atomic<bool> launched{false};
  {
    launch_pool pool(0, 1, 20ms);  // no base: its only thread is one that may retire
    ASSERT_TRUE(pool.submit([&] {
      spawn_request r;
      r.id = 1;
      r.file = "sleep";
      r.args = {"30"};
      tied = launch_process(r, launch_context{});
      r.options.detached = true;  // a session of its own, no parent-death signal
      detached = launch_process(r, launch_context{});
      launched.store(true);
    }));
    while (!launched.load()) std::this_thread::sleep_for(1ms);
    ASSERT_FALSE(tied.error);
    ASSERT_FALSE(detached.error);
    std::this_thread::sleep_for(400ms);  // twenty idle times
    EXPECT_EQ(pool.size(), 1u) << "the thread stays while its child lives";
    EXPECT_TRUE(still_running(tied.pid)) << "the child was not killed by its parent-death signal";
    end_child(tied);
    tied.launch_thread.reset();  // as the helper does at the child's exit
    EXPECT_TRUE(wait_for_size(pool, 0)) << "then it retires";
    EXPECT_TRUE(still_running(detached.pid)) << "a detached child outlives the thread that created it";
  }
  end_child(detached);
}

// As the helper's user with RLIMIT_NPROC reached: the pool grows no further, and the
// jobs wait for the threads it has (faults.test.js covers the helper as a whole).
TEST(LaunchPool, ARefusedThreadLeavesTheJobToTheThreadsThereAre) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run as a user with a process limit";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // This process's threads (TSan runs one of its own) and one more, for this otherwise
    // unused user; root ignores the limit.
    std::thread([] {}).join();  // TSan starts its own thread at the first thread after fork
    rlim_t tasks = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) tasks += entry.is_directory() ? 1 : 0;
    const rlimit one_more{tasks + 1, tasks + 1};
    if (setgid(54329) != 0 || setuid(54329) != 0 || setrlimit(RLIMIT_NPROC, &one_more) != 0) _exit(10);
    int code = 0;
    {
      gate g;
      launch_pool pool(1, 4, 10s);
      const opens_at_end guard{g};
      if (pool.size() != 1) _exit(11);
      if (!pool.submit(g.job()) || !pool.submit(g.job())) _exit(12);
      if (!g.wait_inside(1)) _exit(13);
      std::this_thread::sleep_for(100ms);
      if (pool.size() != 1 || g.inside_now() != 1) code = 14;  // refused: no second thread
      g.release();
      if (!g.wait_done(2)) _exit(15);  // and the waiting job still ran
    }
    {
      const rlimit none{tasks, tasks};  // no thread at all: submit says so, as at the helper's start
      setrlimit(RLIMIT_NPROC, &none);
      launch_pool pool(1, 4, 10s);
      if (pool.size() != 0 || pool.submit([] {})) code = code ? code : 16;
    }
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace spawnhost
