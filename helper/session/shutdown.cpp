// The session's end (session.hpp): ending the children, waiting for launches in flight
// and for both sessions of a helper, then flushing what is queued for Node.
#include "session/session.hpp"

namespace spawnhost {

// Either channel may ask to end the helper; the leader runs the sequence for both.
void session::handle(shutdown_request&& r) {
  (leader_ ? *leader_ : *this).begin_shutdown(std::chrono::milliseconds(r.grace_ms));
}

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
