// The session (session.hpp): its start, the dispatch of each frame to its handler, and
// the requests about one child, which wait in its pending launch if the child does not
// exist yet. The rest lives by concern in session/: launches.cpp (a spawn until its
// child exists), spawn_outcomes.cpp (await_spawn), shutdown.cpp, and resize.cpp (a
// terminal child's window size).
#include "session/session.hpp"

#include <asio/post.hpp>
#include <utility>

#include "launch/remove_tree.hpp"

namespace spawnhost {

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
  // execFile's deadline can cut its outputs off before the process even exists.
  if (auto it = launching_.find(r.id); it != launching_.end()) return it->second->early_closes.push_back(r.fd);
  if (child* c = find_child(r.id, "close_output")) c->close_stream(r.fd);
}

void session::handle(ping_request&& r) { channel_.send(encode::pong(r.token)); }

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

void session::channel_error(const std::string& why) {
  channel_.send(encode::error(std::nullopt, false, "ipc: " + why));
}

void session::child_closed(std::uint64_t id) { children_.erase(id); }

}  // namespace spawnhost
