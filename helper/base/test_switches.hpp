// The test and benchmark switches the helper reads from its environment
// (SPAWNHOST_HELPER_NULL_LAUNCHER, ..._BENCH_LAUNCH_DELAY_MS, ..._LAUNCH_IDLE_MS,
// ..._EXIT_DELAY_MS, ..._SYNC_PIPE_PAUSE_MS, ..._NO_CONPTY). They exist only in a test
// build (CMake option SPAWNHOST_TEST_HOOKS, which scripts/build-helper and the test
// scripts turn on): a release helper compiles them out, so no user's environment can
// turn its launches into no-ops or slow them down. Knobs users may need
// (SPAWNHOST_HELPER_NO_PIDFD, SPAWNHOST_HELPER_POSIX_SPAWN) are read directly, not here.
#pragma once
#include <cstdlib>

namespace spawnhost {

#ifdef SPAWNHOST_TEST_HOOKS
inline constexpr bool test_hooks = true;
#else
inline constexpr bool test_hooks = false;
#endif

// The switch's value in a test build; null in a release build, as if it were unset.
inline const char* test_switch(const char* name) noexcept {
  if constexpr (test_hooks) return std::getenv(name);
  static_cast<void>(name);
  return nullptr;
}

}  // namespace spawnhost
