// Windows: an owned OS handle is a HANDLE, closed exactly once (the twin of
// helper/base/posix/os_handle.hpp).
#pragma once
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <utility>

namespace spawnhost {

using native_handle = HANDLE;

class os_handle {
 public:
  os_handle() noexcept = default;
  explicit os_handle(HANDLE h) noexcept : h_(h == INVALID_HANDLE_VALUE ? nullptr : h) {}
  os_handle(os_handle&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  os_handle& operator=(os_handle&& other) noexcept {
    if (this != &other) reset(std::exchange(other.h_, nullptr));
    return *this;
  }
  os_handle(const os_handle&) = delete;
  os_handle& operator=(const os_handle&) = delete;
  ~os_handle() { reset(); }

  HANDLE get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  HANDLE release() noexcept { return std::exchange(h_, nullptr); }
  void reset(HANDLE h = nullptr) noexcept {
    if (h_) CloseHandle(h_);
    h_ = h == INVALID_HANDLE_VALUE ? nullptr : h;
  }

 private:
  HANDLE h_ = nullptr;
};

}  // namespace spawnhost
