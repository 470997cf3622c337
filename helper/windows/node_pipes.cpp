// windows/node_pipes.hpp: the child's ends of stdio handed over to Node.
#include "windows/node_pipes.hpp"

#include <chrono>

#include "windows/command_line.hpp"

namespace spawnhost::windows {
namespace {

std::error_code win32_error(DWORD e = GetLastError()) { return {static_cast<int>(e), std::system_category()}; }

// How long a launch waits while its pipe's instances are taken (Node made one for each
// of its piped stdio, but a foreign client may hold one until Node's thread closes it):
// past it the launch fails ("pipe", EBUSY by libuv's table) rather than holding its
// launch thread for ever on a Node that never accepts.
constexpr std::chrono::seconds busy_limit{30};

}  // namespace

std::error_code open_node_pipe(const std::string& pipe_base, std::uint64_t launch_id, const std::string& token, int fd,
                               os_handle& theirs) {
  // Without both there is nothing Node would accept: refused as a bad request.
  if (pipe_base.empty() || token.empty() || fd < 0 || fd > 2) return std::make_error_code(std::errc::invalid_argument);
  // The launch's own pipe (stream-pipes.js names it so): the id, never the secret, since
  // the pipe namespace can be listed.
  const std::wstring name = widen(pipe_base + "-" + std::to_string(launch_id));
  const auto give_up = std::chrono::steady_clock::now() + busy_limit;
  os_handle ours;
  for (;;) {
    // Synchronous, as libuv opens a child's end: Node's child reads and writes it with
    // blocking calls. Both directions here: the token is written even on stdin's.
    ours.reset(CreateFileW(name.c_str(), GENERIC_READ | GENERIC_WRITE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, 0,
                           nullptr, OPEN_EXISTING, SECURITY_SQOS_PRESENT | SECURITY_IDENTIFICATION, nullptr));
    if (ours) break;
    const DWORD e = GetLastError();
    if (e != ERROR_PIPE_BUSY || std::chrono::steady_clock::now() >= give_up) return win32_error(e);
    WaitNamedPipeW(name.c_str(), 1000);
  }
  // The pipe's buffer (64 KiB in libuv) takes these few bytes at once, whatever Node's
  // thread is doing.
  const std::string prefix = token + static_cast<char>('0' + fd);
  DWORD written = 0;
  if (!WriteFile(ours.get(), prefix.data(), static_cast<DWORD>(prefix.size()), &written, nullptr)) return win32_error();
  if (written != prefix.size()) return std::make_error_code(std::errc::io_error);
  // The child's copy: one direction only, so a child cannot write into Node's end of
  // its stdin, nor read from its outputs.
  const DWORD access = fd == 0 ? GENERIC_READ | FILE_WRITE_ATTRIBUTES : GENERIC_WRITE | FILE_READ_ATTRIBUTES;
  HANDLE copy = nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), ours.get(), GetCurrentProcess(), &copy, access, TRUE, 0)) return win32_error();
  theirs.reset(copy);
  return {};
}

}  // namespace spawnhost::windows
