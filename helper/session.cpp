#include "session.hpp"

#include <asio/post.hpp>
#include <charconv>
#include <thread>
#include <utility>

#include "remove_tree.hpp"

namespace spawnhost {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

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

session::session(asio::io_context& io, launch_pool& pool, session_config config, int in_fd, int out_fd)
    : io_(io),
      pool_(pool),
      config_(std::move(config)),
      channel_(io, in_fd, out_fd, *this),
      grace_timer_(io),
      follower_flush_limit_(io) {}

void session::lead(session& follower) {
  follower_ = &follower;
  follower.leader_ = this;
}

void session::start() {
  channel_.send(encode::hello(config_.version, current_process_id()));
  channel_.start_reading();
}

void session::on_frame(std::string_view body) {
  decoded_request d = decode_request(body);
  if (d.error != decode_error::none) {
    channel_.send(encode::error(d.id, false, std::string(to_string(d.error)) + ": " + d.detail));
    return;
  }
  std::visit([this](auto&& r) { handle(std::move(r)); }, std::move(d.value));
}

void session::on_input_end(decode_error error, std::string detail) {
  if (error != decode_error::none) {
    channel_.send(encode::error(std::nullopt, true, std::string(to_string(error)) + ": " + detail));
  }
  // The sync channel's end is not Node's: the helper goes on serving the main channel
  // (Node then hears the fatal error above on its next blocking call).
  if (leader_) return;
  begin_shutdown(config_.grace);
}

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
  if (r.options.handover && !node_ipc_) {
    reject_awaits(id, "EINVAL");
    return channel_.send(encode::error(id, false, "bad_option: handover needs Node's IPC channel (--ipc-fd)"));
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
  const bool queued = pool_.submit([this, p] {
    const std::uint64_t queued_us = micros_since(p->queued_at);
    const std::uint64_t timeout_ms = p->request.options.timeout_ms;
    // A launch that waited past its whole timeout (or was killed while queued) never
    // starts: its caller has already been told it failed.
    const char* skip = p->cancelled ? "ECANCELED"
                       : timeout_ms && queued_us >= timeout_ms * 1000 ? "ETIMEDOUT"
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

child* session::find_child(std::uint64_t id, const char* what) {
  auto it = children_.find(id);
  if (it != children_.end()) return it->second.get();
  // A request can cross the child's last event on the wire; Node ignores this error
  // for an id it already considers finished.
  channel_.send(encode::error(id, false, std::string("unknown child id ") + std::to_string(id) + " for " + what));
  return nullptr;
}

void session::handle(write_request&& r) {
  if (auto it = launching_.find(r.id); it != launching_.end()) {
    it->second->early_input.emplace_back(r.bytes);
    return;
  }
  if (child* c = find_child(r.id, "write")) c->write(r.bytes);
}

void session::handle(send_request&& r) {
  if (auto it = launching_.find(r.id); it != launching_.end()) {
    it->second->early_sends.emplace_back(r.bytes);
    return;
  }
  if (child* c = find_child(r.id, "send")) c->send(r.bytes, r.quiet);
}

void session::handle(end_request&& r) {
  if (auto it = launching_.find(r.id); it != launching_.end()) {
    it->second->early_end = true;
    return;
  }
  if (child* c = find_child(r.id, "end")) c->end_input();
}

void session::handle(kill_request&& r) {
  const auto signal = signal_number(r.signal);
  if (!signal) return channel_.send(encode::error(r.id, false, "bad_field: unknown signal '" + r.signal + "'"));
  if (auto it = launching_.find(r.id); it != launching_.end()) {
    it->second->cancelled = true;
    it->second->kill_on_arrival = *signal;
    return;
  }
  if (child* c = find_child(r.id, "kill")) c->kill(*signal);
}

void session::handle(credit_request&& r) {
  if (child* c = find_child(r.id, "credit")) c->add_credit(r.fd, r.bytes);
}

void session::handle(close_output_request&& r) {
  // execFile's timeout can cut its outputs off before the process even exists.
  if (auto it = launching_.find(r.id); it != launching_.end()) return it->second->early_closes.push_back(r.fd);
  if (child* c = find_child(r.id, "close_output")) c->close_stream(r.fd);
}

void session::handle(ping_request&& r) { channel_.send(encode::pong(r.token)); }

// Either channel may ask to end the helper; the leader runs the sequence for both.
void session::handle(shutdown_request&& r) {
  (leader_ ? *leader_ : *this).begin_shutdown(std::chrono::milliseconds(r.grace_ms));
}

// Asked on the sync channel about a launch of the main channel: Node's thread is
// blocked reading a child's pid, and only the leader knows it.
void session::handle(await_spawn_request&& r) {
  (leader_ ? *leader_ : *this).when_spawn_known(r.id, [this](std::uint64_t id, const spawn_outcome& o) {
    channel_.send(encode::spawn_known(id, o.pid, o.pid ? std::nullopt : std::optional<std::string_view>(o.code)));
  });
}

void session::when_spawn_known(std::uint64_t id, spawn_waiter waiter) {
  if (auto it = children_.find(id); it != children_.end()) {
    return waiter(id, {static_cast<std::uint64_t>(it->second->pid()), {}});
  }
  if (auto it = launching_.find(id); it != launching_.end()) return it->second->awaiting.push_back(std::move(waiter));
  if (auto it = recent_outcomes_.find(id); it != recent_outcomes_.end()) return waiter(id, it->second);
  if (shutting_down_) return waiter(id, {std::nullopt, "ECANCELED"});
  if (last_spawn_id_ && ((*last_spawn_id_ - id) & 0xffffffffu) < 0x80000000u) {
    return waiter(id, {std::nullopt, "ESRCH"});
  }
  awaits_before_spawn_[id].push_back(std::move(waiter));
}

void session::spawn_known(std::uint64_t id, std::vector<spawn_waiter>& waiters, spawn_outcome outcome) {
  if (recent_outcomes_.insert_or_assign(id, outcome).second) {
    recent_order_.push_back(id);
    if (recent_order_.size() > remembered_outcomes) {
      recent_outcomes_.erase(recent_order_.front());
      recent_order_.pop_front();
    }
  }
  for (auto& waiter : std::exchange(waiters, {})) waiter(id, outcome);
}

void session::reject_awaits(std::uint64_t id, const char* code) {
  auto it = awaits_before_spawn_.find(id);
  if (it == awaits_before_spawn_.end()) return;
  auto waiters = std::move(it->second);
  awaits_before_spawn_.erase(it);
  spawn_known(id, waiters, {std::nullopt, code});
}

void session::handle(remove_tree_request&& r) {
  ++removals_in_flight_;
  const std::uint64_t id = r.id;
  const bool queued = pool_.submit([this, id, path = std::move(r.path)] {
    const remove_result result = remove_tree(path);
    asio::post(io_, [this, id, result] {
      --removals_in_flight_;
      if (result.error) {
        channel_.send(encode::removed(id, error_name(result.error), result.syscall));
      } else {
        channel_.send(encode::removed(id, std::nullopt, std::nullopt));
      }
      maybe_finish();
    });
  });
  if (!queued) {
    --removals_in_flight_;
    channel_.send(encode::removed(id, "EAGAIN", "rm"));
  }
}

void session::when_output_room(std::function<void()> resume) {
  waiting_for_room_.push_back(std::move(resume));
  channel_.want_room();
}

void session::on_output_room() {
  auto waiting = std::move(waiting_for_room_);
  waiting_for_room_.clear();
  for (auto& resume : waiting) resume();
}

void session::child_exited(std::uint64_t id) { if (node_ipc_) node_ipc_->child_exited(id); maybe_finish(); }

// A child whose stdio cannot reach Node is of no use to it: it is killed, and Node
// hears why about its id (its `exit` follows as usual).
void session::hand_over_failed(std::uint64_t id, const std::string& why) {
  if (auto it = children_.find(id); it != children_.end()) it->second->kill(sigkill_number);
  channel_.send(encode::error(id, false, "handover: " + why));
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

void session::channel_error(const std::string& why) {
  channel_.send(encode::error(std::nullopt, false, "ipc: " + why));
}

void session::child_closed(std::uint64_t id) { children_.erase(id); }

void session::begin_shutdown(std::chrono::milliseconds grace) {
  if (shutting_down_) return;
  shutting_down_ = true;
  for (auto& [id, p] : launching_) {
    p->cancelled = true;
    if (!p->request.options.detached) p->kill_on_arrival = p->kill_signal;
  }
  for (auto it = children_.begin(); it != children_.end();) {
    child& c = *it->second;
    if (c.detached()) {
      c.stop_watching();  // it outlives us, as asked
      it = children_.erase(it);
      continue;
    }
    c.kill(c.kill_signal());
    ++it;
  }
  // Spawns still waiting for a descriptor of Node's will not get it now.
  for (auto& p : std::exchange(awaiting_given_, {})) on_launch_skipped(p, "ECANCELED");
  given_.clear();
  for (auto& [id, waiters] : std::exchange(awaits_before_spawn_, {})) {
    for (auto& waiter : waiters) waiter(id, {std::nullopt, "ECANCELED"});
  }
  if (follower_) follower_->begin_shutdown(grace);
  grace_timer_.expires_after(grace);
  grace_timer_.async_wait([this](std::error_code ec) {
    if (ec) return;
    for (auto& [id, c] : children_) c->kill(sigkill_number);
  });
  maybe_finish();
}

void session::maybe_finish() {
  if (!shutting_down_ || finished_ || !launching_.empty() || removals_in_flight_) return;
  for (auto& [id, c] : children_) {
    if (!c->exited()) return;
  }
  if (follower_ && !follower_->finished_) return;
  finished_ = true;
  grace_timer_.cancel();
  // Exited children whose pipes a grandchild still holds are not waited for.
  for (auto& [id, c] : children_) c->stop_watching();
  children_.clear();
  if (leader_) return leader_->maybe_finish();
  channel_.when_flushed([this] {
    if (!follower_) return io_.stop();
    // Node reads the sync socket only while a blocking call waits on it: a Node that
    // is alive but not in such a call leaves a full socket full. So its last frames
    // get a bounded wait.
    follower_flush_limit_.expires_after(std::chrono::seconds(1));
    follower_flush_limit_.async_wait([this](std::error_code ec) {
      if (!ec) io_.stop();
    });
    follower_->channel_.when_flushed([this] {
      follower_flush_limit_.cancel();
      io_.stop();
    });
  });
}

}  // namespace spawnhost
