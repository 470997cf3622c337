// child_pipe (os_io.hpp): readiness by zero-byte overlapped read, then a read of only
// what is already in the pipe, as libuv does for Node's pipes on Windows.
#include <windows.h>

#include "os_io.hpp"

namespace spawnhost {

void child_pipe::start_zero_read(asio::windows::overlapped_ptr& op) {
  static char nothing;
  if (!ReadFile(native_handle(), &nothing, 0, nullptr, op.get())) {
    const DWORD e = GetLastError();
    if (e != ERROR_IO_PENDING && e != ERROR_MORE_DATA) {
      op.complete(std::error_code(static_cast<int>(e), asio::error::get_system_category()), 0);
      return;
    }
  }
  op.release();  // the completion port reports it, also when ReadFile finished at once
}

read_outcome child_pipe::read_now(char* data, std::size_t size) noexcept {
  DWORD available = 0;
  if (!PeekNamedPipe(native_handle(), nullptr, 0, nullptr, &available, nullptr)) return {0, false};  // gone: end
  if (available == 0) return {0, true};
  // The handle is on the completion port; an event with its low bit set keeps this
  // read's completion off the port (documented for GetQueuedCompletionStatus).
  thread_local HANDLE event = CreateEventW(nullptr, TRUE, FALSE, nullptr);
  OVERLAPPED overlapped{};
  overlapped.hEvent = reinterpret_cast<HANDLE>(reinterpret_cast<ULONG_PTR>(event) | 1);
  DWORD n = 0;
  const DWORD want = static_cast<DWORD>(std::min<std::size_t>(size, available));
  if (!ReadFile(native_handle(), data, want, &n, &overlapped)) {
    if (GetLastError() != ERROR_IO_PENDING || !GetOverlappedResult(native_handle(), &overlapped, &n, TRUE)) return {0, false};
  }
  if (!deframer_) return {n, false};
  // A channel: only the frames' data goes on. Bytes that are not libuv's framing end
  // the channel, as they end it in libuv (ECONNABORTED there).
  std::size_t carried = 0;
  if (!deframer_->take(data, n, carried)) return {0, false};
  return {carried, carried == 0};
}

}  // namespace spawnhost
