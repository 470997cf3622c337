// The launch pool: jobs run on its threads, all of them, concurrently. Built under
// TSan in CI, where the concurrent-launch test is the one that matters.
#include "launch_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "process.hpp"

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

}  // namespace
}  // namespace spawnhost
