// ConPTY's calls, found at run time, and the consoles of running terminal children
// (pseudo_console.hpp).
#include "windows/pty/pseudo_console.hpp"

#include <memory>
#include <mutex>
#include <unordered_map>

#include "base/test_switches.hpp"

namespace spawnhost::windows::conpty {
namespace {

using create_fn = HRESULT(WINAPI*)(COORD, HANDLE, HANDLE, DWORD, console_handle*);
using resize_fn = HRESULT(WINAPI*)(console_handle, COORD);
using close_fn = void(WINAPI*)(console_handle);

struct calls {
  create_fn create = nullptr;
  resize_fn resize = nullptr;
  close_fn close = nullptr;
};

// Looked up once; kernel32 is never unloaded, so the pointers stay good.
// SPAWNHOST_HELPER_NO_CONPTY=1 (set when the helper starts; test builds only:
// test_switches.hpp) finds none, to test a Windows without ConPTY on one that has it.
const calls& conpty_calls() noexcept {
  static const calls found = [] {
    calls c;
    wchar_t off[2] = {};
    if (test_hooks && GetEnvironmentVariableW(L"SPAWNHOST_HELPER_NO_CONPTY", off, 2) == 1 && off[0] == L'1') return c;
    if (const HMODULE kernel32 = GetModuleHandleW(L"kernel32.dll")) {
      c.create = reinterpret_cast<create_fn>(reinterpret_cast<void*>(GetProcAddress(kernel32, "CreatePseudoConsole")));
      c.resize = reinterpret_cast<resize_fn>(reinterpret_cast<void*>(GetProcAddress(kernel32, "ResizePseudoConsole")));
      c.close = reinterpret_cast<close_fn>(reinterpret_cast<void*>(GetProcAddress(kernel32, "ClosePseudoConsole")));
    }
    if (!c.create || !c.resize || !c.close) c = calls{};
    return c;
  }();
  return found;
}

// A console kept for a running child. Found by the child's process id (a key handle's
// GetProcessId): the id cannot be reused while `process`, our own handle, is open, and
// that is closed only after the entry is gone.
struct kept_console {
  console_handle pseudo;
  HANDLE process;       // waited on by the pool
  HANDLE wait = nullptr;  // the pool's wait, set under the lock before the callback can run
  DWORD pid;
};

std::mutex kept_lock;
std::unordered_map<DWORD, kept_console*> kept;

void CALLBACK child_exited(void* context, BOOLEAN) {
  auto* k = static_cast<kept_console*>(context);
  {
    std::lock_guard<std::mutex> hold(kept_lock);  // also waits for `wait` to be stored
    kept.erase(k->pid);
  }
  // Ends the console host and every program still attached to it; the host closes its
  // end of the output pipe, so the relay sees the end once it has read the rest.
  conpty_calls().close(k->pseudo);
  UnregisterWait(k->wait);  // a one-shot wait, from its own callback: does not block
  CloseHandle(k->process);
  delete k;
}

COORD size_of(std::uint16_t cols, std::uint16_t rows) {
  // A COORD holds SHORTs: the session checks 1-65535, ConPTY takes up to 32767.
  const auto clamp = [](std::uint16_t v) { return static_cast<SHORT>(v > 32767 ? 32767 : v); };
  return COORD{clamp(cols), clamp(rows)};
}

}  // namespace

bool available() noexcept { return conpty_calls().create != nullptr; }

std::error_code hresult_error(long hr) noexcept {
  const auto code = static_cast<unsigned long>(hr);
  if (HRESULT_FACILITY(hr) == FACILITY_WIN32) return {static_cast<int>(HRESULT_CODE(hr)), std::system_category()};
  if (code == 0x80004001UL /* E_NOTIMPL */) return {ERROR_NOT_SUPPORTED, std::system_category()};
  if (code == 0x8007000EUL || code == 0x80000002UL /* E_OUTOFMEMORY */) return {ERROR_OUTOFMEMORY, std::system_category()};
  if (code == 0x80070057UL || code == 0x80000003UL /* E_INVALIDARG */) return {ERROR_INVALID_PARAMETER, std::system_category()};
  return {ERROR_GEN_FAILURE, std::system_category()};
}

console::~console() {
  if (h_) conpty_calls().close(h_);
}

std::error_code console::create(std::uint16_t cols, std::uint16_t rows, HANDLE input, HANDLE output, console& out) noexcept {
  if (!available()) return std::make_error_code(std::errc::not_supported);
  console_handle h = nullptr;
  const HRESULT hr = conpty_calls().create(size_of(cols, rows), input, output, 0, &h);
  if (FAILED(hr)) return hresult_error(hr);
  out.h_ = h;
  return {};
}

std::error_code keep_until_exit(console&& pseudo, HANDLE process, os_handle& key) noexcept try {
  const auto duplicate = [process](os_handle& copy) -> std::error_code {
    HANDLE h = nullptr;
    if (!DuplicateHandle(GetCurrentProcess(), process, GetCurrentProcess(), &h, 0, FALSE, DUPLICATE_SAME_ACCESS))
      return {static_cast<int>(GetLastError()), std::system_category()};
    copy.reset(h);
    return {};
  };
  os_handle waited, key_copy;
  if (auto ec = duplicate(waited)) return ec;
  if (auto ec = duplicate(key_copy)) return ec;
  std::unique_ptr<kept_console> k(new kept_console{pseudo.get(), waited.get(), nullptr, GetProcessId(process)});
  std::lock_guard<std::mutex> hold(kept_lock);
  kept.emplace(k->pid, k.get());
  // WT_EXECUTELONGFUNCTION: the close may wait for the host's last output to be read.
  if (!RegisterWaitForSingleObject(&k->wait, k->process, child_exited, k.get(), INFINITE,
                                   WT_EXECUTEONLYONCE | WT_EXECUTELONGFUNCTION)) {
    const std::error_code ec{static_cast<int>(GetLastError()), std::system_category()};
    kept.erase(k->pid);
    return ec;  // `pseudo` and `waited` close on return
  }
  k.release();  // child_exited deletes it
  pseudo.release();
  waited.release();
  key = std::move(key_copy);
  return {};
} catch (const std::bad_alloc&) {
  return std::make_error_code(std::errc::not_enough_memory);
}

std::error_code resize(HANDLE key, std::uint16_t cols, std::uint16_t rows) noexcept {
  if (!key) return std::make_error_code(std::errc::bad_file_descriptor);
  // Under the lock: the console cannot be closed while it is resized.
  std::lock_guard<std::mutex> hold(kept_lock);
  const auto found = kept.find(GetProcessId(key));
  if (found == kept.end()) return std::make_error_code(std::errc::no_such_process);
  const HRESULT hr = conpty_calls().resize(found->second->pseudo, size_of(cols, rows));
  return FAILED(hr) ? hresult_error(hr) : std::error_code{};
}

}  // namespace spawnhost::windows::conpty
