// The helper's brain: dispatches requests by type, keeps the table of children and of
// launches in flight, and runs the shutdown sequence. Data flows down (channel →
// session → child → launch pool) and events up, as frames through the channel.
//
// A helper may run two: the leader on stdin/stdout, and a follower on the sync socket
// (--sync-fd, docs/sync.md), which Node's blocking calls use while its event loop
// cannot run. They share the io_context and launch pool; each has its own children.
// The leader's shutdown ends the follower's children too; the follower's input
// ending ends nothing.
#pragma once
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "session/channel.hpp"
#include "session/child.hpp"
#include "launch/launch_pool.hpp"
#include "protocol/messages.hpp"
#include "launch/channel_listener.hpp"
#include "launch/node_ipc.hpp"
#include "launch/process.hpp"
#include "pty/terminal.hpp"  // launch_child

namespace spawnhost {

struct session_config {
  std::string version;
  std::chrono::milliseconds grace{5000};  // between the kill signal and SIGKILL at shutdown
  launch_context launch;                  // inherited descriptors, children's process group
  // Benchmarks only (SPAWNHOST_HELPER_NULL_LAUNCHER=1): every launch is answered as a
  // child that started and exited 0 at once, and no process is created, so that Node's
  // own cost per launch can be measured alone.
  bool null_launcher = false;
  // Benchmarks and tests only (SPAWNHOST_HELPER_BENCH_LAUNCH_DELAY_MS): each launch
  // holds its launch thread this long before creating the process, as CreateProcessW
  // does on a Windows host whose endpoint security scans every new process.
  std::chrono::milliseconds launch_delay{0};
};

class session final : public channel::handler, public child_owner, public node_ipc::handler {
 public:
  session(asio::io_context& io, launch_pool& pool, session_config config, int in_fd, int out_fd);
  void start();  // say hello, then serve
  // Makes `follower` this session's follower: its shutdown follows ours, the helper
  // stops only once both are done, and its await_spawn asks about our launches.
  void lead(session& follower);
  // Node's IPC channel (--ipc-fd): spawns with `handover` give it their piped stdio.
  void use_node_ipc(node_ipc& ipc) { node_ipc_ = &ipc; }
  // The listener Node connects forked children's channels to (spawn option
  // ipc_connected, channel_listener.hpp); the session owns it from now on.
  void use_channel_listener(const channel_listener& listener) { channel_listener_ = listener; }
  // Ends every non-detached child (kill signal, SIGKILL after `grace`), waits for
  // launches in flight, flushes what is queued for Node, then stops the loop.
  void begin_shutdown(std::chrono::milliseconds grace);

  // channel::handler
  void on_frame(std::string_view body) override;
  void on_input_end(decode_error error, std::string detail) override;
  void on_output_room() override;

  // child_owner
  void send(std::string frame) override { channel_.send(std::move(frame)); }
  bool output_congested() override { return channel_.congested(); }
  void when_output_room(std::function<void()> resume) override;
  std::string take_buffer() override { return channel_.take_buffer(); }
  void return_buffer(std::string buffer) override { channel_.return_buffer(std::move(buffer)); }
  void send_in_buffer(std::string buffer, std::size_t begin, std::size_t end) override {
    channel_.send_in_buffer(std::move(buffer), begin, end);
  }
  void child_exited(std::uint64_t id) override;
  void child_closed(std::uint64_t id) override;

  // node_ipc::handler
  void hand_over_failed(std::uint64_t id, const std::string& why) override;
  void received(const std::string& message, os_handle handle) override;
  void channel_error(const std::string& why) override;

 private:
  // What a launch came to, for await_spawn: a pid, or the spawn_error code.
  struct spawn_outcome {
    std::optional<std::uint64_t> pid;
    std::string code;
  };
  using spawn_waiter = std::function<void(std::uint64_t id, const spawn_outcome&)>;
  // A spawn between its request and its result from the launch pool.
  struct pending_launch {
    spawn_request request;
    int kill_signal = 0;
    std::chrono::steady_clock::time_point queued_at;
    std::atomic<bool> cancelled{false};  // read by the launch thread before it starts
    int kill_on_arrival = 0;             // a kill that came while it was being created
    std::vector<std::string> early_input;
    std::vector<std::string> early_sends;
    bool early_end = false;
    std::vector<std::uint32_t> early_closes;  // close_output before the process existed
    std::vector<spawn_waiter> awaiting;  // await_spawn requests about this launch
    std::array<os_handle, 3> given;      // Node's descriptors for stdio kind given
    ~pending_launch() { close_channel(request.options.connected_channel); }  // the child has its copy
  };

  // A spawn until its child exists: session/launches.cpp.
  void handle(spawn_request&& r);
  void submit(const std::shared_ptr<pending_launch>& p);
  bool take_given(pending_launch& p);  // false: a descriptor it names has not come yet
  void answer_without_process(const spawn_request& r);
  void on_launched(const std::shared_ptr<pending_launch>& p, launched_process&& result, std::uint64_t queued_us);
  void on_launch_skipped(const std::shared_ptr<pending_launch>& p, const char* code);
  // Requests about one child, then the rest: session.cpp.
  void handle(write_request&& r);
  void handle(end_request&& r);
  void handle(kill_request&& r);
  void handle(credit_request&& r);
  void handle(close_output_request&& r);
  void handle(send_request&& r);
  void handle(remove_tree_request&& r);
  void handle(ping_request&& r);
  void handle(resize_request&& r);  // session/resize.cpp
  child* find_child(std::uint64_t id, const char* what);
  // await_spawn: session/spawn_outcomes.cpp.
  void handle(await_spawn_request&& r);
  void when_spawn_known(std::uint64_t id, spawn_waiter waiter);
  void spawn_known(std::uint64_t id, std::vector<spawn_waiter>& waiters, spawn_outcome outcome);
  void reject_awaits(std::uint64_t id, const char* code);  // a spawn refused before launching
  // The end: session/shutdown.cpp (with begin_shutdown above).
  void handle(shutdown_request&& r);
  void maybe_finish();

  asio::io_context& io_;
  launch_pool& pool_;
  session_config config_;
  channel channel_;
  std::unordered_map<std::uint64_t, std::shared_ptr<child>> children_;
  std::unordered_map<std::uint64_t, std::shared_ptr<pending_launch>> launching_;
  // await_spawn about an id whose spawn has not arrived yet: the two channels are read
  // independently, so the question may overtake the spawn it is about.
  std::unordered_map<std::uint64_t, std::vector<spawn_waiter>> awaits_before_spawn_;
  // Descriptors Node sent for spawns' stdio kind given (helper.send(msg, handle) on the
  // IPC channel, by token), until the spawn that names them takes them; and spawns
  // that came first, on the other channel, waiting for theirs (in launching_ too).
  std::unordered_map<std::uint64_t, os_handle> given_;
  std::vector<std::shared_ptr<pending_launch>> awaiting_given_;
  // The last outcomes, for an await_spawn that arrives after its child already closed.
  // Node's ids grow until they wrap at 2^32, so an id here is not reused meanwhile.
  static constexpr std::size_t remembered_outcomes = 1024;
  std::unordered_map<std::uint64_t, spawn_outcome> recent_outcomes_;
  std::deque<std::uint64_t> recent_order_;
  // The last spawn id read. Node's ids grow (mod 2^32) in the order its spawns are
  // written, so an id at or before it whose outcome is no longer remembered came and
  // went: await_spawn is answered (ESRCH) instead of waiting for a spawn that passed.
  std::optional<std::uint64_t> last_spawn_id_;
  node_ipc* node_ipc_ = nullptr;
  channel_listener channel_listener_;
  session* leader_ = nullptr;
  session* follower_ = nullptr;
  std::size_t removals_in_flight_ = 0;
  std::vector<std::function<void()>> waiting_for_room_;
  asio::steady_timer grace_timer_;
  asio::steady_timer follower_flush_limit_;  // see maybe_finish
  bool shutting_down_ = false;
  bool finished_ = false;
};

}  // namespace spawnhost
