// spawnhost-helper: creates processes for one Node.js host, speaking the protocol in
// schema/README.md on its stdin/stdout. Diagnostics go to stderr only.
//
//   spawnhost-helper [--launch-threads N] [--grace-ms MS] [--inherit-fds A,B,C]
//                    [--leave-parent] [--input-fd N] [--sync-fd N | --sync-pipe NAME] [--ipc-fd N] [--channel-name NAME] [--stream-pipe NAME]
//   spawnhost-helper --version
//   spawnhost-helper --terminal-exec ...   (started by the helper itself: pty/terminal.hpp)
#include <asio/io_context.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "launch/launch_pool.hpp"
#include "session/termination_signals.hpp"
#include "launch/process.hpp"
#include "launch/node_ipc.hpp"
#include "pty/terminal.hpp"
#include "session/session.hpp"
#include "sync/sync_socket.hpp"
#include "base/test_switches.hpp"

#ifndef SPAWNHOST_VERSION
#error "SPAWNHOST_VERSION must be defined by the build (from js/package.json)"
#endif

namespace {

// Launch threads: a base that lives as long as the helper, and a cap the pool grows to
// while launches wait for a thread (docs/architecture.md, "Launch pool"). The cap was
// picked with bench/slow-launch.mjs (bench/RESULTS.md). An extra thread retires after
// this idle time; starting one again costs well under a millisecond.
constexpr std::size_t base_launch_threads = 2;
constexpr std::size_t default_launch_threads = 16;
constexpr std::chrono::milliseconds launch_thread_idle{10000};
// How long a launch waits for the one requested before it to be created, before it is
// created beside it (launch_pool's in_order_for; docs/decisions/launch-pool.md, "Launch order").
// POSIX creations take 0.2 to 2 ms, and tens of ms only when a loaded machine's
// scheduler holds the launch thread: 50 ms keeps the order through those, and a stuck
// creation (swap, a network file system) still holds the others back no longer. On
// Windows a creation takes 5 to 30 ms, and endpoint security can hold one for seconds:
// there the pool's parallel creation is what matters, so later launches wait 20 ms.
#ifdef _WIN32
constexpr std::chrono::milliseconds launch_in_order_for{20};
#else
constexpr std::chrono::milliseconds launch_in_order_for{50};
#endif

struct arguments {
  std::size_t launch_threads = default_launch_threads;  // the cap (--launch-threads, maxLaunchThreads)
  long grace_ms = 5000;
  int inherited[3] = {-1, -1, -1};
  bool leave_parent = false;  // started by a worker thread: see prepare_helper_process
  int input_fd = 0;           // where Node's frames arrive (not stdin: see --leave-parent in channel.js)
  int sync_fd = -1;           // one end of Node's socketpair for the sync channel (docs/sync.md)
  const char* sync_pipe = nullptr;  // Windows: the sync channel's named pipe, made here (docs/sync.md)
  const char* channel_name = nullptr;  // the listener for Node-owned fork channels (channel_listener.hpp)
  int ipc_fd = -1;            // Node's IPC channel ("ipc" stdio entry): stdio hand-over (node_ipc.hpp)
  const char* stream_pipe = nullptr;  // Windows: Node's pipe, the stdio hand-over there (windows/node_pipes.hpp)
};

bool parse_number(std::string_view text, long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

int usage(const char* problem) {
  std::fprintf(stderr, "spawnhost-helper: %s\nusage: spawnhost-helper [--launch-threads N] [--grace-ms MS] "
               "[--inherit-fds A,B,C] [--leave-parent] [--input-fd N] [--sync-fd N | --sync-pipe NAME] [--ipc-fd N] [--channel-name NAME] [--stream-pipe NAME] | --version\n", problem);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything of the helper's own runs: this process is a terminal child on its
  // way to exec its program (pty/terminal.hpp).
  if (const int code = spawnhost::run_terminal_trampoline(argc, argv); code >= 0) return code;
  arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    long n = 0;
    if (arg == "--version") {
      std::printf("%s\n", SPAWNHOST_VERSION);
      return 0;
    } else if (arg == "--launch-threads" && value && parse_number(value, n) && n >= 1 && n <= 1024) {
      args.launch_threads = static_cast<std::size_t>(n);
      ++i;
    } else if (arg == "--grace-ms" && value && parse_number(value, n)) {
      args.grace_ms = n;
      ++i;
    } else if (arg == "--input-fd" && value && parse_number(value, n) && n <= 1024) {
      args.input_fd = static_cast<int>(n);
      ++i;
    } else if (arg == "--sync-fd" && value && parse_number(value, n) && n >= 3 && n <= 1024) {
      args.sync_fd = static_cast<int>(n);
      ++i;
    } else if (arg == "--sync-pipe" && value && *value) {
      args.sync_pipe = value;
      ++i;
    } else if (arg == "--channel-name" && value && *value) {
      args.channel_name = value;
      ++i;
    } else if (arg == "--ipc-fd" && value && parse_number(value, n) && n >= 3 && n <= 1024) {
      args.ipc_fd = static_cast<int>(n);
      ++i;
#ifdef _WIN32
    } else if (arg == "--stream-pipe" && value && *value) {
      args.stream_pipe = value;
      ++i;
#endif
    } else if (arg == "--leave-parent") {
      args.leave_parent = true;
    } else if (arg == "--inherit-fds" && value) {
      std::string_view list = value;
      for (int fd = 0; fd < 3; ++fd) {
        const auto comma = list.find(',');
        if (!parse_number(list.substr(0, comma), n)) return usage("--inherit-fds takes three descriptor numbers");
        args.inherited[fd] = static_cast<int>(n);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
      ++i;
    } else {
      return usage((std::string("unknown or invalid argument: ") + argv[i]).c_str());
    }
  }

  const spawnhost::helper_origin origin = spawnhost::prepare_helper_process(args.leave_parent);
  // Tests only (SPAWNHOST_HELPER_LAUNCH_IDLE_MS, test builds: test_switches.hpp): extra
  // launch threads retire sooner.
  std::chrono::milliseconds idle = launch_thread_idle;
  const char* idle_text = spawnhost::test_switch("SPAWNHOST_HELPER_LAUNCH_IDLE_MS");
  if (long ms = 0; idle_text && parse_number(idle_text, ms)) idle = std::chrono::milliseconds(ms);
  spawnhost::launch_pool pool(std::min(base_launch_threads, args.launch_threads), args.launch_threads, idle, launch_in_order_for);
  asio::io_context io(1);
  spawnhost::session_config config;
  config.version = SPAWNHOST_VERSION;
  config.grace = std::chrono::milliseconds(args.grace_ms);
  std::memcpy(config.launch.inherited, args.inherited, sizeof args.inherited);
  config.launch.process_group = origin.node_group;
  config.launch.node_pid = origin.node_pid;
  if (args.stream_pipe) config.launch.stream_pipe = args.stream_pipe;
  if (const char* on = spawnhost::test_switch("SPAWNHOST_HELPER_NULL_LAUNCHER"); on && std::string_view(on) == "1") {
    config.null_launcher = true;
    std::fprintf(stderr, "spawnhost-helper: SPAWNHOST_HELPER_NULL_LAUNCHER=1: no process will be created (benchmarks only)\n");
  }
  if (const char* ms = spawnhost::test_switch("SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS"); ms && *ms) {
    long n = 0;
    if (parse_number(ms, n) && n <= 60000) config.launch_delay = std::chrono::milliseconds(n);
    std::fprintf(stderr, "spawnhost-helper: SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS=%s: every launch holds its thread %ld ms first (benchmarks only)\n", ms, n);
  }
  spawnhost::session session(io, pool, config, args.input_fd, 1);
  std::optional<spawnhost::node_ipc> ipc;
  if (args.ipc_fd >= 0) {
    ipc.emplace(io, args.ipc_fd, session);
    session.use_node_ipc(*ipc);
  }
  spawnhost::channel_listener listener;
  if (args.channel_name) {
    if (!spawnhost::listen_channel(args.channel_name, listener)) std::fprintf(stderr, "spawnhost-helper: no channel listener: %s\n", std::strerror(errno));
    else session.use_channel_listener(listener);
  }

  // The sync channel is a socket Node made with our stdio: nothing to create, and no
  // name anyone else could open. On Windows, a pipe only Node's logon session can open
  // and only Node may use. Without it the helper still serves the main channel; Node's
  // blocking calls then report that it never said hello there.
  std::optional<spawnhost::session> sync_session;
  if (args.sync_fd >= 0 || args.sync_pipe) {
    spawnhost::sync_socket_ends ends;
    const std::error_code error = args.sync_pipe ? spawnhost::open_sync_pipe(args.sync_pipe, ends)
                                                 : spawnhost::open_sync_socket(args.sync_fd, ends);
    if (error) {
      std::fprintf(stderr, "spawnhost-helper: no sync channel on %s: %s\n",
                   args.sync_pipe ? args.sync_pipe : std::to_string(args.sync_fd).c_str(), error.message().c_str());
    } else {
      sync_session.emplace(io, pool, config, ends.request, ends.reply);
      session.lead(*sync_session);
    }
  }

  // SIGTERM (also our parent-death signal) ends children the orderly way.
  spawnhost::termination_signals signals(io);
  signals.async_wait([&] { session.begin_shutdown(config.grace); });
  if (sync_session) sync_session->start();
  session.start();
  if (ipc) ipc->start();
  io.run();
  spawnhost::remove_channel_listener(listener);  // a path's socket file goes with us
  return 0;
}
