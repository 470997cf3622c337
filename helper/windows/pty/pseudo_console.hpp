// ConPTY, the Windows pseudo console (docs/pty.md, "Windows"): the three calls, found
// at run time in kernel32 (Windows 10 1809 and later have them; on older systems the
// helper still starts, and a terminal launch fails with ENOTSUP), and the consoles of
// running terminal children.
//
// A console lives until its child exits: a thread-pool wait on the process then closes
// it (ClosePseudoConsole), which ends the console host, and with it every other
// program still attached, and so ends the output pipe the session relays. That close
// may wait until the host's last output is read (some Windows 10 builds do), so it runs
// on the pool, never on a launch thread or the io thread, which keeps reading.
#pragma once
#include <windows.h>

#include <cstdint>
#include <system_error>
#include <utility>

#include "os_handle.hpp"

namespace spawnhost::windows::conpty {

using console_handle = void*;  // an HPCON: not a kernel handle, closed by ClosePseudoConsole only

// True when this Windows has CreatePseudoConsole, ResizePseudoConsole and ClosePseudoConsole.
bool available() noexcept;

// An HRESULT from ConPTY as an error code the session can name: Win32 errors as
// themselves, E_NOTIMPL (wine's ResizePseudoConsole) as ERROR_NOT_SUPPORTED (ENOTSUP).
std::error_code hresult_error(long hr) noexcept;

// One pseudo console, closed by its destructor unless handed to keep_until_exit.
class console {
 public:
  console() noexcept = default;
  console(console&& other) noexcept : h_(std::exchange(other.h_, nullptr)) {}
  console& operator=(console&&) = delete;
  console(const console&) = delete;
  ~console();
  console_handle get() const noexcept { return h_; }
  console_handle release() noexcept { return std::exchange(h_, nullptr); }

  // A console of cols x rows whose host reads typed bytes from `input` and writes what
  // it shows to `output` (synchronous pipe ends; the host keeps copies of its own).
  static std::error_code create(std::uint16_t cols, std::uint16_t rows, HANDLE input, HANDLE output, console& out) noexcept;

 private:
  console_handle h_ = nullptr;
};

// Keeps `pseudo` open while `process` runs and closes it once it exited. Returns the
// terminal's key for resize (a handle to the process of its own, which the child
// keeps as launched_process::terminal), or an error (then `pseudo` is closed here).
std::error_code keep_until_exit(console&& pseudo, HANDLE process, os_handle& key) noexcept;

// ResizePseudoConsole on the console kept for `key`; ESRCH once the child exited.
std::error_code resize(HANDLE key, std::uint16_t cols, std::uint16_t rows) noexcept;

}  // namespace spawnhost::windows::conpty
