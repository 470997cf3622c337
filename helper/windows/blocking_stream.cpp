// See blocking_stream.hpp. One thread per stream runs one ReadFile or WriteFile at a
// time and posts its completion to the io_context. The thread may be stuck in ReadFile
// when the helper exits; it shares nothing with the stream but `shared_state`, and
// touches the io_context only while the stream exists.
#include "blocking_stream.hpp"

#include <io.h>
#include <windows.h>

#include <asio/error.hpp>
#include <asio/post.hpp>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace spawnhost {

struct blocking_stream::shared_state {
  HANDLE handle = nullptr;
  std::mutex mutex;
  std::condition_variable wake;
  bool closed = false;     // the stream is gone: post nothing, touch no io_context
  bool has_job = false;
  bool write = false;
  void* data = nullptr;
  std::size_t size = 0;
  std::string block;       // what a write sends
  completion done;
  asio::io_context* io = nullptr;
  std::optional<asio::executor_work_guard<executor_type>> work;  // the loop runs while a job is out
};

namespace {

std::error_code last_error() { return {static_cast<int>(GetLastError()), std::system_category()}; }

void serve(std::shared_ptr<blocking_stream::shared_state> s) {
  for (;;) {
    std::unique_lock lock(s->mutex);
    s->wake.wait(lock, [&] { return s->closed || s->has_job; });
    if (s->closed) return;
    const bool write = s->write;
    char* data = write ? s->block.data() : static_cast<char*>(s->data);
    const DWORD size = static_cast<DWORD>(std::min<std::size_t>(write ? s->block.size() : s->size, 1u << 30));
    lock.unlock();

    DWORD n = 0;
    std::error_code ec;
    if (!(write ? WriteFile(s->handle, data, size, &n, nullptr) : ReadFile(s->handle, data, size, &n, nullptr))) {
      const DWORD e = GetLastError();
      ec = !write && (e == ERROR_BROKEN_PIPE || e == ERROR_HANDLE_EOF) ? asio::error::eof : last_error();
    } else if (!write && n == 0 && size > 0) {
      ec = asio::error::eof;
    }

    lock.lock();
    if (s->closed) return;
    s->has_job = false;
    asio::post(*s->io, [done = std::move(s->done), ec, n] { done(ec, n); });
    s->work.reset();
  }
}

}  // namespace

blocking_stream::blocking_stream(asio::io_context& io, int crt_fd) : io_(io), state_(std::make_shared<shared_state>()) {
  state_->handle = reinterpret_cast<HANDLE>(_get_osfhandle(crt_fd));
  state_->io = &io;
  std::thread(serve, state_).detach();
}

blocking_stream::~blocking_stream() {
  std::lock_guard lock(state_->mutex);
  state_->work.reset();
  state_->closed = true;
  state_->wake.notify_all();
}

void blocking_stream::start(bool write, void* data, std::size_t size, completion done) {
  if (size == 0) {  // as Asio does: an empty read or write completes at once
    asio::post(io_, [done = std::move(done)] { done({}, 0); });
    return;
  }
  std::lock_guard lock(state_->mutex);
  state_->write = write;
  state_->data = data;
  state_->size = size;
  state_->done = std::move(done);
  state_->has_job = true;
  state_->work.emplace(io_.get_executor());
  state_->wake.notify_all();
}

void blocking_stream::start_write(std::string block, completion done) {
  {
    std::lock_guard lock(state_->mutex);
    state_->block = std::move(block);
  }
  start(true, nullptr, state_->block.size(), std::move(done));
}

}  // namespace spawnhost
