#include "session/child.hpp"

#include <algorithm>
#include <asio/write.hpp>
#include <utility>

#include "session/write_whole.hpp"

namespace spawnhost {

child::child(asio::io_context& io, child_owner& owner, std::uint64_t id, launched_process&& process,
             const spawn_options& options, int kill_signal, std::chrono::milliseconds grace)
    : io_(io),
      owner_(owner),
      id_(id),
      pid_(process.pid),
      exit_watch_(io, process.pid, std::move(process.exit_handle)),
      terminal_(std::move(process.terminal)),
      deadline_(io, options),
      escalation_(io),
      grace_(grace),
      unlimited_credit_(!options.credit),
      detached_(options.detached),
      max_buffer_(options.max_buffer),
      max_output_(options.max_output),
      kill_signal_(kill_signal),
      result_hold_(options.result ? std::optional<std::uint64_t>(std::min<std::uint64_t>(*options.result, protocol::max_data_chunk))
                                  : std::nullopt),
      launch_thread_(std::move(process.launch_thread)) {
  if (process.stdio[0]) input_.emplace(io, std::move(process.stdio[0]));
  for (std::uint32_t fd = 1; fd <= 2; ++fd) {
    if (process.stdio[fd]) stream_of(fd).pipe.emplace(io, process.stdio[fd].release());
  }
  if (process.channel) stream_of(3).pipe.emplace(io, process.channel.release()).use_as_channel();
  for (auto& s : streams_) s.credit = options.credit.value_or(0);
}

void child::start() {
  watch_exit();
  for (std::uint32_t fd = 1; fd <= 3; ++fd) read_when_ready(fd);
  deadline_.start([self = shared_from_this()] {
    if (self->exited_) return;
    self->flags_ |= protocol::exit_flag::timed_out;
    self->end_for_limit();
    if (self->unlimited_credit_) self->stop_relaying();
  });
  maybe_closed();  // a child with no piped output closes at exit
}

void child::watch_exit() {
  exit_watch_.async_wait([self = shared_from_this()](std::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    self->on_exit();
  });
}

void child::on_exit() {
  exit_status status;
  if (const auto ec = exit_watch_.reap(status)) {
    if (ec == std::errc::interrupted) return watch_exit();
    status.signal = 0;  // cannot happen for our own child; report an unknown end
  }
  exited_ = true;
  launch_thread_.reset();  // reaped: its launch thread may retire now
  status_ = status;  // before the drain: the streams' EOF there may complete the result
  deadline_.cancel();
  escalation_.cancel();
  drain_outputs();
  if (!result_hold_) {
    std::optional<std::string_view> signal;
    if (status.signal) signal = signal_name(status.signal).value_or("SIGUNKNOWN");
    owner_.send(encode::exit(id_, status.code, signal, flags_));
  }
  exit_watch_.close();
  owner_.child_exited(id_);
  maybe_closed();
}

void child::drain_outputs() {
  // Node decides a child's fate at `close`, after all its output: what is already in
  // the pipes when the exit is seen must be relayed, and counted against max_buffer,
  // before `exit` carries the flags. The channel's bytes and EOF likewise go first,
  // as Node reports a child's last messages and its disconnect before its exit.
  for (std::uint32_t fd = 1; fd <= 3; ++fd) {
    while (read_chunk(fd) == read_result::more) {
    }
  }
}

void child::read_when_ready(std::uint32_t fd) {
  stream& s = stream_of(fd);
  if (!s.pipe || s.waiting) return;
  if (!unlimited_credit_ && s.credit == 0) return;  // add_credit resumes
  s.waiting = true;
  if (owner_.output_congested()) {
    owner_.when_output_room([self = shared_from_this(), fd] {
      self->stream_of(fd).waiting = false;
      self->read_when_ready(fd);
    });
    return;
  }
  s.pipe->async_wait_readable([self = shared_from_this(), fd](std::error_code ec) {
    self->stream_of(fd).waiting = false;
    if (ec == asio::error::operation_aborted) return;
    if (ec) return self->close_now(fd);
    self->read_now(fd);
  });
}

void child::read_now(std::uint32_t fd) {
  if (read_chunk(fd) != read_result::closed) read_when_ready(fd);
}

child::read_result child::read_chunk(std::uint32_t fd) {
  stream& s = stream_of(fd);
  if (!s.pipe || (!unlimited_credit_ && s.credit == 0)) return read_result::would_block;
  // The read lands behind room for the frame head, so a large read is sent from where
  // it landed; a small one is copied into a frame of its own size, as a pooled buffer
  // queued for a few bytes would hold 256 KiB.
  std::string buffer = owner_.take_buffer();
  char* payload = buffer.data() + encode::max_data_head;
  std::size_t want = protocol::max_data_chunk;
  if (!unlimited_credit_) want = static_cast<std::size_t>(std::min<std::uint64_t>(want, s.credit));
  // Under a blocking call's cap the read that passes it is kept whole, as Node keeps
  // its own: at most what Node reads at once, so no more output is kept than Node's.
  if (max_output_ && fd != 3) want = std::min(want, node_read_size);
  const read_outcome got = s.pipe->read_now(payload, want);
  if (got.would_block || got.bytes == 0) owner_.return_buffer(std::move(buffer));
  if (got.would_block) return read_result::would_block;
  if (got.bytes == 0) {  // EOF, or an error that ends this stream
    close_now(fd);
    return read_result::closed;
  }
  const std::size_t n = got.bytes;
  std::size_t relay = n;
  const bool over = fd != 3 && max_buffer_ && s.total + relay > *max_buffer_;
  if (over) relay = static_cast<std::size_t>(*max_buffer_ - s.total);  // Node keeps exactly maxBuffer bytes
  s.total += relay;
  if (!unlimited_credit_) s.credit -= static_cast<std::uint64_t>(n);
  if (relay > 0 && hold(fd, payload, relay)) {
    owner_.return_buffer(std::move(buffer));
  } else if (relay >= min_zero_copy_read) {
    const std::size_t begin = static_cast<std::size_t>(encode::data_head_before(payload, id_, fd, relay) - buffer.data());
    const std::size_t end = encode::max_data_head + relay;
    owner_.send_in_buffer(std::move(buffer), begin, end);
  } else {
    if (relay > 0) owner_.send(encode::data(id_, fd, payload, relay));
    owner_.return_buffer(std::move(buffer));
  }
  if (over) {
    flags_ |= fd == 1 ? protocol::exit_flag::max_buffer_stdout : protocol::exit_flag::max_buffer_stderr;
    end_for_limit();
    stop_relaying();
    return read_result::closed;
  }
  // As Node's spawnSync, the read that passes the cap is kept whole.
  if (fd != 3 && max_output_ && (output_total_ += relay) > *max_output_) {
    end_for_output_cap();
    return read_result::closed;
  }
  return read_result::more;
}

void child::end_for_output_cap() {
  flags_ |= protocol::exit_flag::max_output;
  end_for_limit();
  stop_relaying();
}

void child::close_now(std::uint32_t fd) {
  stream& s = stream_of(fd);
  if (!s.pipe) return;
  if (fd == 3) flush_acknowledgement(sink::to_channel);  // before send_error or eof
  if (fd == 3 && !channel_writer_.pending.empty()) {
    // The channel is gone in both directions: what was not written never will be.
    channel_writer_.pending.clear();
    owner_.send(encode::send_error(id_, "EPIPE"));
  }
  s.pipe.reset();  // closes, cancelling pending waits and writes
  if (!result_hold_ || fd == 3) owner_.send(encode::eof(id_, fd));  // the result frame says it
  maybe_closed();
}

void child::close_stream(std::uint32_t fd) {
  if (fd == 3) {
    channel_writer_.closing = true;  // after queued sends; close_writer calls close_now(3)
    if (!channel_writer_.writing) close_writer(sink::to_channel);
    return;
  }
  close_now(fd);
}

void child::stop_relaying() {
  // Node's execFile destroys both output streams when it kills at the deadline or
  // maxBuffer: what came before is kept, nothing after it.
  close_now(1);
  close_now(2);
}

void child::add_credit(std::uint32_t fd, std::uint64_t bytes) {
  stream_of(fd).credit += bytes;
  read_when_ready(fd);
}

write_outcome child::write_now(sink s, const char* data, std::size_t size) {
  return s == sink::to_stdin ? input_->write_now(data, size) : stream_of(3).pipe->write_now(data, size);
}

void child::write(std::string_view bytes) { queue_write(sink::to_stdin, bytes); }

void child::send(std::string_view bytes, bool quiet) { queue_write(sink::to_channel, bytes, quiet); }

void child::queue_write(sink s, std::string_view bytes, bool quiet) {
  writer& w = writer_of(s);
  if (!can_write(s) || w.closing) return;  // an earlier error or close already said so
  if (!w.writing) {
    // Nothing queued: the pipe takes what it can straight from Node's frame, which
    // saves copying it and, usually, a trip through the event loop.
    const write_outcome now = write_now(s, bytes.data(), bytes.size());
    if (now.error) return write_failed(s, now.error);
    if (now.bytes == bytes.size()) {
      if (!quiet) return acknowledge(s, now.bytes + std::exchange(w.unacknowledged, 0));
      w.unacknowledged += now.bytes;
      if (w.unacknowledged >= quiet_ack_limit) flush_acknowledgement(s);
      return;
    }
    w.unacknowledged += now.bytes;  // said together with the rest
    bytes.remove_prefix(now.bytes);
  }
  w.pending.emplace_back(bytes);
  if (!w.writing) write_next(s);
}

void child::acknowledge(sink s, std::uint64_t bytes) {
  owner_.send(s == sink::to_stdin ? encode::written(id_, bytes) : encode::sent(id_, bytes));
}

void child::flush_acknowledgement(sink s) {
  if (const std::uint64_t held = std::exchange(writer_of(s).unacknowledged, 0)) acknowledge(s, held);
}

void child::write_failed(sink s, std::error_code ec) {
  writer& w = writer_of(s);
  flush_acknowledgement(s);  // what was written before the error was written
  const char* code = error_name(ec);
  owner_.send(s == sink::to_stdin ? encode::stdin_error(id_, code) : encode::send_error(id_, code));
  w.pending.clear();
  w.writing = false;
  w.closing = true;
  if (s == sink::to_stdin) close_writer(s);  // the channel ends when its reading side does
}

void child::write_next(sink s) {
  writer& w = writer_of(s);
  if (!can_write(s)) return;
  if (w.pending.empty()) {
    w.writing = false;
    if (w.closing) close_writer(s);
    return;
  }
  w.writing = true;
  asio::async_write(async_target(s), asio::buffer(w.pending.front()), write_whole, [self = shared_from_this(), s](std::error_code ec, std::size_t n) {
    if (ec == asio::error::operation_aborted) return;
    // The pipe was closed since (the channel's end read first, which cleared `pending`
    // and said EPIPE), but this write had completed: on Windows a completion already
    // queued is delivered as it was, and the reactor may run a finished write's handler
    // after the read that closed. Nothing of the writer is left to update.
    if (!self->can_write(s)) return;
    writer& w = self->writer_of(s);
    if (ec) return self->write_failed(s, ec);
    w.pending.pop_front();
    self->acknowledge(s, n + std::exchange(w.unacknowledged, 0));
    self->write_next(s);
  });
}

void child::end_input() {
  stdin_writer_.closing = true;
  if (!stdin_writer_.writing) close_writer(sink::to_stdin);
}

void child::close_writer(sink s) {
  if (s == sink::to_stdin) input_.reset();
  else close_now(3);
}

void child::end_for_limit() {
  kill(kill_signal_);
  if (kill_signal_ == sigkill_number || exited_) return;
  escalation_.expires_after(grace_);
  escalation_.async_wait([self = shared_from_this()](std::error_code ec) {
    if (!ec) self->kill(sigkill_number);
  });
}

std::error_code child::kill(int signal) {
  if (exited_) return {};
  return exit_watch_.signal(signal);
}

void child::stop_watching() {
  // An exited child whose pipes a grandchild holds, at the helper's end: its outcome
  // is known, and no later frame could say it.
  if (exited_) send_result();
  exit_watch_.close();
  deadline_.cancel();
  escalation_.cancel();
  for (auto& s : streams_) s.pipe.reset();
  input_.reset();
}

void child::maybe_closed() {
  if (closed_ || !exited_) return;
  for (const auto& s : streams_) {
    if (s.pipe) return;
  }
  closed_ = true;
  input_.reset();
  send_result();
  owner_.child_closed(id_);
}

bool child::hold(std::uint32_t fd, const char* bytes, std::size_t size) {
  if (!result_hold_ || fd == 3) return false;
  stream& s = stream_of(fd);
  if (s.streamed) return false;
  if (s.held.size() + size <= *result_hold_) {
    s.held.append(bytes, size);
    return true;
  }
  // More than one result frame holds: this stream goes as data frames from now on.
  s.streamed = true;
  if (!s.held.empty()) owner_.send(encode::data(id_, fd, s.held.data(), s.held.size()));
  std::string().swap(s.held);
  return false;
}

void child::send_result() {
  if (!result_hold_ || result_sent_) return;
  result_sent_ = true;
  std::optional<std::string_view> signal;
  if (status_.signal) signal = signal_name(status_.signal).value_or("SIGUNKNOWN");
  owner_.send(encode::result(id_, status_.code, signal, flags_, stream_of(1).held, stream_of(2).held,
                             static_cast<std::uint64_t>(pid_), create_us_, queued_us_));
}

}  // namespace spawnhost
