// See blocking_stream.hpp. One thread per stream runs one ReadFile or WriteFile at a
// time and posts its completion to the io_context. The thread may be stuck in ReadFile
// when the helper exits; it shares nothing with the stream but `shared_state`, and
// touches the io_context only while the stream exists.
#include "windows/blocking_stream.hpp"
#include "os_handle.hpp"

#include <io.h>
#include <windows.h>

#include <asio/error.hpp>
#include <asio/post.hpp>
#include <condition_variable>
#include <map>
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
  std::shared_ptr<first_io> gate;  // set: an overlapped handle, ready once gate->prepare ran
};

namespace {

std::error_code last_error() { return {static_cast<int>(GetLastError()), std::system_category()}; }

std::mutex gates_mutex;
std::map<int, std::shared_ptr<blocking_stream::first_io>> gates;  // hold_first_io's, until their stream is made

// One ReadFile or WriteFile; on an overlapped handle, waits for it on `event`.
BOOL transfer(HANDLE h, bool write, char* data, DWORD size, DWORD& n, HANDLE event) {
  if (!event) return write ? WriteFile(h, data, size, &n, nullptr) : ReadFile(h, data, size, &n, nullptr);
  OVERLAPPED ov{};
  ov.hEvent = event;
  const BOOL done = write ? WriteFile(h, data, size, nullptr, &ov) : ReadFile(h, data, size, nullptr, &ov);
  if (!done && GetLastError() != ERROR_IO_PENDING) return FALSE;
  return GetOverlappedResult(h, &ov, &n, TRUE);
}

// The first read prepares the pipe, then sends what was written before.
void open_gate(blocking_stream::first_io& gate, HANDLE h, HANDLE event) {
  std::error_code result = event ? gate.prepare() : last_error();
  std::lock_guard lock(gate.mutex);
  for (std::size_t at = 0; !result && at < gate.early.size();) {
    DWORD n = 0;
    if (!transfer(h, true, gate.early.data() + at, static_cast<DWORD>(gate.early.size() - at), n, event)) result = last_error();
    at += n;
  }
  gate.early = {};
  gate.result = result;
  gate.ready = !result;
}

// A write before the pipe is ready is kept (true, all of it "written"); after a failed
// preparation it fails (true, `ec`). False: write it now.
bool keep_early(blocking_stream::first_io& gate, const char* data, DWORD size, DWORD& n, std::error_code& ec) {
  std::lock_guard lock(gate.mutex);
  if (gate.ready) return false;
  if (gate.result) {
    ec = gate.result;
  } else {
    gate.early.append(data, size);
    n = size;
  }
  return true;
}

void serve(std::shared_ptr<blocking_stream::shared_state> s) {
  const os_handle event_owner(s->gate ? CreateEventW(nullptr, TRUE, FALSE, nullptr) : nullptr);
  const HANDLE event = event_owner.get();
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
    if (s->gate && !write) std::call_once(s->gate->once, [&] { open_gate(*s->gate, s->handle, event); });
    if (s->gate && !event) {
      ec = last_error();
    } else if (s->gate && write && keep_early(*s->gate, data, size, n, ec)) {
      // kept for later, or the pipe could not be prepared
    } else if (s->gate && !write && s->gate->result) {
      ec = s->gate->result;
    } else if (!transfer(s->handle, write, data, size, n, event)) {
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

void blocking_stream::hold_first_io(int crt_fd, std::shared_ptr<first_io> gate) {
  std::lock_guard lock(gates_mutex);
  gates[crt_fd] = std::move(gate);
}

blocking_stream::blocking_stream(asio::io_context& io, int crt_fd) : io_(io), state_(std::make_shared<shared_state>()) {
  state_->handle = reinterpret_cast<HANDLE>(_get_osfhandle(crt_fd));
  {
    std::lock_guard lock(gates_mutex);
    if (const auto it = gates.find(crt_fd); it != gates.end()) {
      state_->gate = std::move(it->second);
      gates.erase(it);
    }
  }
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
