// The session's launches (session.hpp), from the spawn request to the child: the
// checks a spawn must pass, the descriptors Node gives for stdio kind given (they come
// on Node's IPC channel, the spawn on the main one, in either order), the launch pool's
// turn, and what was asked of the child (input, kills) before it existed.
#include <asio/post.hpp>
#include <charconv>
#include <thread>
#include <utility>

#include "session/deadline.hpp"
#include "session/session.hpp"

namespace spawnhost {
namespace {

std::uint64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
}

// The descriptor a launcher dup2s from, for stdio kind given. The Windows helper has no
// IPC channel to Node, so it never holds one (the session refuses the kind there).
#ifdef _WIN32
int descriptor_of(const os_handle&) { return -1; }
#else
int descriptor_of(const os_handle& handle) { return handle.get(); }
#endif

}  // namespace

void session::handle(spawn_request&& r) {
  const std::uint64_t id = r.id;
  last_spawn_id_ = id;
  // Node connected this request's channel before it wrote the request: the connection
  // is taken first, whatever happens to the request, so the next one finds its own.
  // Until the launch owns it, returning closes it (Node's end then reads EOF).
  std::string accept_failure;
  if (r.options.ipc_connected && channel_listener_) {
    r.options.connected_channel = accept_channel(channel_listener_, config_.launch.node_pid, accept_failure);
  }
  struct channel_guard {
    spawn_options& options;
    ~channel_guard() { close_channel(std::exchange(options.connected_channel, -1)); }
  } guard{r.options};
  if (r.options.ipc_connected && (!r.options.ipc || r.options.connected_channel < 0)) {
    reject_awaits(id, "EINVAL");
    const std::string why = !channel_listener_ ? "no channel listener (--channel-name)" : !r.options.ipc ? "needs ipc" : accept_failure;
    return channel_.send(encode::error(id, false, "bad_option: ipc_connected: " + why));
  }
  if (shutting_down_) {
    reject_awaits(id, "ECANCELED");
    return channel_.send(encode::spawn_error(id, "ECANCELED", "queue"));
  }
  if (children_.count(id) || launching_.count(id)) {
    return channel_.send(encode::error(id, false, "bad_field: request id " + std::to_string(id) + " is already in use"));
  }
  const auto signal = signal_number(r.options.kill_signal);
  if (!signal) {
    reject_awaits(id, "EINVAL");
    return channel_.send(encode::error(id, false, "bad_option: unknown signal '" + r.options.kill_signal + "'"));
  }
  if (r.options.handover && !node_ipc_ && config_.launch.stream_pipe.empty()) {
    reject_awaits(id, "EINVAL");
    return channel_.send(encode::error(id, false, "bad_option: handover needs Node's IPC channel (--ipc-fd) or stream pipe (--stream-pipe)"));
  }
  for (int fd = 0; fd < 3; ++fd) {
    const bool given = r.options.stdio[fd] == protocol::stdio_kind::given;
    if (given == (r.options.given[fd] != 0) && (!given || node_ipc_)) continue;
    reject_awaits(id, "EINVAL");
    return channel_.send(encode::error(id, false, !given ? "bad_option: given names a descriptor for a stdio entry that is not given"
                                                  : !r.options.given[fd] ? "bad_option: stdio kind given without its token in given"
                                                                         : "bad_option: stdio kind given needs Node's IPC channel (--ipc-fd)"));
  }
  if (config_.null_launcher) {
    close_channel(std::exchange(r.options.connected_channel, -1));  // Node's end reads its EOF
    return answer_without_process(r);
  }
  auto p = std::make_shared<pending_launch>();
  p->request = std::move(r);
  r.options.connected_channel = -1;  // p owns it now
  p->kill_signal = *signal;
  p->queued_at = std::chrono::steady_clock::now();
  if (auto it = awaits_before_spawn_.find(id); it != awaits_before_spawn_.end()) {
    p->awaiting = std::move(it->second);
    awaits_before_spawn_.erase(it);
  }
  launching_[id] = p;
  if (!take_given(*p)) return awaiting_given_.push_back(p);
  submit(p);
}

// Node wrote the descriptors before the spawn, but on another channel, read on its own:
// the spawn may come first and waits here for them (received() resumes it).
bool session::take_given(pending_launch& p) {
  auto& options = p.request.options;
  for (int fd = 0; fd < 3; ++fd) {
    if (options.stdio[fd] == protocol::stdio_kind::given && !p.given[fd] && !given_.count(options.given[fd])) return false;
  }
  for (int fd = 0; fd < 3; ++fd) {
    if (options.stdio[fd] != protocol::stdio_kind::given || p.given[fd]) continue;
    auto it = given_.find(options.given[fd]);
    p.given[fd] = std::move(it->second);
    given_.erase(it);
    options.given_fds[fd] = descriptor_of(p.given[fd]);
  }
  return true;
}

void session::submit(const std::shared_ptr<pending_launch>& p) {
  // A blocking call's launch is the follower's (docs/sync.md).
  const bool blocking = leader_ != nullptr;
  const bool queued = pool_.submit([this, p, blocking] {
    const std::uint64_t queued_us = micros_since(p->queued_at);
    // A launch killed while queued, or past its deadline, never starts: its caller has
    // already been told it failed.
    const char* skip = p->cancelled                                                          ? "ECANCELED"
                       : deadline::passed_in_queue(p->request.options, queued_us, blocking) ? "ETIMEDOUT"
                                                                                            : nullptr;
    if (skip) return asio::post(io_, [this, p, skip] { on_launch_skipped(p, skip); });
    if (config_.launch_delay.count()) std::this_thread::sleep_for(config_.launch_delay);
    auto result = std::make_shared<launched_process>(launch_child(p->request, config_.launch));
    asio::post(io_, [this, p, result, queued_us] { on_launched(p, std::move(*result), queued_us); });
  });
  // No launch thread exists and none could be started (RLIMIT_NPROC): the answer
  // child_process gives when it cannot fork.
  if (!queued) on_launch_skipped(p, "EAGAIN");
}

void session::answer_without_process(const spawn_request& r) {
  if (r.options.result) return channel_.send(encode::result(r.id, 0, std::nullopt, 0, {}, {}, 0, 0, 0));
  channel_.send(encode::spawned(r.id, 0, 0, 0));
  for (std::uint32_t fd = 1; fd <= 2; ++fd) {
    if (r.options.stdio[fd] == protocol::stdio_kind::pipe && !r.options.handover) channel_.send(encode::eof(r.id, fd));
  }
  if (r.options.ipc && !r.options.ipc_connected) channel_.send(encode::eof(r.id, 3));
  channel_.send(encode::exit(r.id, 0, std::nullopt, 0));
}

void session::on_launch_skipped(const std::shared_ptr<pending_launch>& p, const char* code) {
  launching_.erase(p->request.id);
  channel_.send(encode::spawn_error(p->request.id, code, "queue"));
  spawn_known(p->request.id, p->awaiting, {std::nullopt, code});
  maybe_finish();
}

void session::on_launched(const std::shared_ptr<pending_launch>& p, launched_process&& result, std::uint64_t queued_us) {
  const std::uint64_t id = p->request.id;
  launching_.erase(id);
  if (result.error) {
    channel_.send(encode::spawn_error(id, error_name(result.error), result.stage));
    spawn_known(id, p->awaiting, {std::nullopt, error_name(result.error)});
    return maybe_finish();
  }
  const std::uint64_t pid = static_cast<std::uint64_t>(result.pid), create_us = result.create_us;
  // Handed over, our ends of the stdio go to Node, and the child object never sees them.
  std::array<os_handle, 3> handed;
  if (p->request.options.handover) {
    for (int fd = 0; fd < 3; ++fd) handed[fd] = std::move(result.stdio[fd]);
  }
  auto c = std::make_shared<child>(io_, *this, id, std::move(result), p->request.options, p->kill_signal,
                                   config_.grace);
  children_[id] = c;
  // A caller that asked for the result frame hears of the launch in it.
  if (p->request.options.result) c->set_launch_timings(create_us, queued_us);
  else channel_.send(encode::spawned(id, pid, create_us, queued_us));
  if (handed[0] || handed[1] || handed[2]) node_ipc_->hand_over(id, pid, std::move(handed));
  spawn_known(id, p->awaiting, {pid, {}});
  c->start();
  for (const auto& bytes : p->early_input) c->write(bytes);
  if (p->early_end) c->end_input();
  for (const auto& bytes : p->early_sends) c->send(bytes);
  for (const std::uint32_t fd : p->early_closes) c->close_stream(fd);
  if (p->kill_on_arrival) c->kill(p->kill_on_arrival);
  if (shutting_down_ && !c->detached()) c->kill(c->kill_signal());
}

// A descriptor from Node (helper.send(msg, handle)): the stdio of a spawn that names
// its token, {"cmd":"NODE_SPAWNHOST_GIVE","token":T}. Anything else is closed.
void session::received(const std::string& message, os_handle handle) {
  constexpr std::string_view prefix = R"({"cmd":"NODE_SPAWNHOST_GIVE","token":)";
  std::uint64_t token = 0;
  const bool ours = message.compare(0, prefix.size(), prefix) == 0 &&
                    std::from_chars(message.data() + prefix.size(), message.data() + message.size(), token).ptr ==
                        message.data() + message.size() - 1 &&
                    message.back() == '}' && token != 0;
  if (!ours) return channel_error("a descriptor from Node with a message the helper does not know, closed: " + message.substr(0, 200));
  given_[token] = std::move(handle);
  for (auto it = awaiting_given_.begin(); it != awaiting_given_.end();) {
    if (!take_given(**it)) {
      ++it;
      continue;
    }
    auto p = *it;
    it = awaiting_given_.erase(it);
    submit(p);  // a shutdown meanwhile emptied awaiting_given_; a kill makes the pool skip it
  }
}

}  // namespace spawnhost
