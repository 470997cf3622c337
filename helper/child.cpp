#include "child.hpp"

#include <unistd.h>

#include <algorithm>
#include <asio/write.hpp>
#include <cerrno>

namespace spawnhost {

child::child(asio::io_context& io, child_owner& owner, std::uint64_t id, launched_process&& process,
             const spawn_options& options, int kill_signal)
    : io_(io),
      owner_(owner),
      id_(id),
      pid_(process.pid),
      exit_watch_(io, process.exit_handle.release()),
      timeout_(io),
      unlimited_credit_(!options.credit),
      detached_(options.detached),
      max_buffer_(options.max_buffer),
      timeout_ms_(options.timeout_ms),
      kill_signal_(kill_signal) {
  if (process.stdio[0]) input_.emplace(io, process.stdio[0].release());
  for (std::uint32_t fd = 1; fd <= 2; ++fd) {
    auto& out = outputs_[fd - 1];
    if (process.stdio[fd]) out.pipe.emplace(io, process.stdio[fd].release());
    out.credit = options.credit.value_or(0);
  }
}

void child::start() {
  watch_exit();
  read_when_ready(1);
  read_when_ready(2);
  if (timeout_ms_ > 0) {
    timeout_.expires_after(std::chrono::milliseconds(timeout_ms_));
    timeout_.async_wait([self = shared_from_this()](std::error_code ec) {
      if (ec || self->exited_) return;
      self->flags_ |= protocol::exit_flag::timed_out;
      self->kill(self->kill_signal_);
      if (self->unlimited_credit_) self->stop_relaying();
    });
  }
  maybe_closed();  // a child with no piped output closes at exit
}

void child::watch_exit() {
  exit_watch_.async_wait(asio::posix::descriptor_base::wait_read, [self = shared_from_this()](std::error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    self->on_exit();
  });
}

void child::on_exit() {
  exit_status status;
  if (const auto ec = reap_process(pid_, exit_watch_.native_handle(), status)) {
    if (ec.value() == EINTR) return watch_exit();
    status.signal = 0;  // cannot happen for our own child; report an unknown end
  }
  exited_ = true;
  timeout_.cancel();
  std::optional<std::string_view> signal;
  if (status.signal) signal = signal_name(status.signal).value_or("SIGUNKNOWN");
  owner_.send(encode::exit(id_, status.code, signal, flags_));
  exit_watch_.close();
  owner_.child_exited(id_);
  maybe_closed();
}

void child::read_when_ready(std::uint32_t fd) {
  auto& out = outputs_[fd - 1];
  if (!out.pipe || out.waiting) return;
  if (!unlimited_credit_ && out.credit == 0) return;  // add_credit resumes
  out.waiting = true;
  if (owner_.output_congested()) {
    owner_.when_output_room([self = shared_from_this(), fd] {
      self->outputs_[fd - 1].waiting = false;
      self->read_when_ready(fd);
    });
    return;
  }
  out.pipe->async_wait(asio::posix::descriptor_base::wait_read, [self = shared_from_this(), fd](std::error_code ec) {
    self->outputs_[fd - 1].waiting = false;
    if (ec == asio::error::operation_aborted) return;
    if (ec) return self->close_output(fd);
    self->read_now(fd);
  });
}

void child::read_now(std::uint32_t fd) {
  auto& out = outputs_[fd - 1];
  if (!out.pipe) return;
  std::string& buffer = owner_.read_buffer();
  std::size_t want = buffer.size();
  if (!unlimited_credit_) want = static_cast<std::size_t>(std::min<std::uint64_t>(want, out.credit));
  ssize_t n;
  do n = ::read(out.pipe->native_handle(), buffer.data(), want);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return read_when_ready(fd);
  if (n <= 0) return close_output(fd);  // EOF, or an error that ends this stream

  std::size_t relay = static_cast<std::size_t>(n);
  const bool over = max_buffer_ && out.total + relay > *max_buffer_;
  if (over) relay = static_cast<std::size_t>(*max_buffer_ - out.total);  // Node keeps exactly maxBuffer bytes
  out.total += relay;
  if (!unlimited_credit_) out.credit -= static_cast<std::uint64_t>(n);
  if (relay > 0) owner_.send(encode::data(id_, fd, buffer.data(), relay));
  if (over) {
    flags_ |= fd == 1 ? protocol::exit_flag::max_buffer_stdout : protocol::exit_flag::max_buffer_stderr;
    kill(kill_signal_);
    return stop_relaying();
  }
  read_when_ready(fd);
}

void child::close_output(std::uint32_t fd) {
  auto& out = outputs_[fd - 1];
  if (!out.pipe) return;
  out.pipe.reset();  // closes, cancelling a pending wait
  owner_.send(encode::eof(id_, fd));
  maybe_closed();
}

void child::stop_relaying() {
  // Node's execFile destroys both output streams when it kills for a timeout or
  // maxBuffer: what came before is kept, nothing after it.
  close_output(1);
  close_output(2);
}

void child::add_credit(std::uint32_t fd, std::uint64_t bytes) {
  auto& out = outputs_[fd - 1];
  out.credit += bytes;
  read_when_ready(fd);
}

void child::write(std::string bytes) {
  if (!input_ || input_ending_) return;  // an earlier error already said so
  pending_input_.push_back(std::move(bytes));
  if (!writing_) write_next();
}

void child::write_next() {
  if (!input_) return;
  if (pending_input_.empty()) {
    writing_ = false;
    if (input_ending_) close_input();
    return;
  }
  writing_ = true;
  asio::async_write(*input_, asio::buffer(pending_input_.front()),
                    [self = shared_from_this()](std::error_code ec, std::size_t n) {
                      if (ec == asio::error::operation_aborted) return;
                      if (ec) {
                        self->owner_.send(encode::stdin_error(self->id_, errno_name(ec.value())));
                        self->pending_input_.clear();
                        self->writing_ = false;
                        self->close_input();
                        return;
                      }
                      self->pending_input_.pop_front();
                      self->owner_.send(encode::written(self->id_, n));
                      self->write_next();
                    });
}

void child::end_input() {
  input_ending_ = true;
  if (!writing_) close_input();
}

void child::close_input() { input_.reset(); }

std::error_code child::kill(int signal) {
  if (exited_) return {};
  return signal_process(pid_, exit_watch_.native_handle(), signal);
}

void child::stop_watching() {
  exit_watch_.close();
  timeout_.cancel();
  for (auto& out : outputs_) out.pipe.reset();
  input_.reset();
}

void child::maybe_closed() {
  if (closed_ || !exited_ || outputs_[0].pipe || outputs_[1].pipe) return;
  closed_ = true;
  input_.reset();
  owner_.child_closed(id_);
}

}  // namespace spawnhost
