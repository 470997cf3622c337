// The session's answers to await_spawn (session.hpp): Node's blocking calls ask on the
// sync channel for the outcome of a launch made on the main one, which may not have
// been read yet, may be in flight, or may have come and gone.
#include <utility>

#include "session/session.hpp"

namespace spawnhost {

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

}  // namespace spawnhost
