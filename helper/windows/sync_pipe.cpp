// Windows: the sync channel is a named pipe (docs/sync.md, "Windows"). Node's end of a
// libuv stdio pipe has no descriptor there for fs.readSync, so Node opens this pipe by
// name with fs.openSync, at its first blocking call, and then:
//   1. writes the value of its handle (8 bytes, little endian: libuv reports a pipe's
//      HANDLE as its inode);
//   2. we check that the client is Node (our parent), duplicate that handle and make
//      Node's end non-blocking (PIPE_NOWAIT): no read or write of Node's waits after;
//   3. we make a second instance of the name and wait for Node to open it: Node may
//      read only once that open succeeds (before, a read would wait for us). Node holds
//      it open until our hello came, so that we find it connected and can check that
//      it is Node's (one that came and went is not taken for Node); we close it then.
// Frames move only then (blocking_stream::first_io); the hello written at start waits
// in memory meanwhile. The name is Node's random choice; FILE_FLAG_FIRST_PIPE_INSTANCE
// fails if anyone made it first; the DACL admits this logon session only; remote
// clients are refused; a client other than Node is disconnected.
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#include <sddl.h>
#include <tlhelp32.h>

#include <cstdint>
#include <cwchar>
#include <memory>
#include <string>

#include "windows/blocking_stream.hpp"
#include "os_handle.hpp"
#include "sync/sync_socket.hpp"
#include "base/test_switches.hpp"

namespace spawnhost {
namespace {

constexpr DWORD reply_buffer_bytes = 1 << 20;    // as the POSIX socket's send buffer
constexpr DWORD request_buffer_bytes = 64 << 10;
constexpr DWORD pipe_type = PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS;

std::error_code win32_error(DWORD e = GetLastError()) { return {static_cast<int>(e), std::system_category()}; }

// Who may open the pipe: this logon session (its SID is in every interactive or
// service token), else (a token without one) this user.
std::wstring owner_only_sddl() {
  HANDLE raw = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &raw)) return {};
  const os_handle token(raw);
  PSID sid = nullptr;
  DWORD size = 0;
  GetTokenInformation(token.get(), TokenGroups, nullptr, 0, &size);
  std::unique_ptr<char[]> groups_buf(new char[size ? size : 1]);
  if (size && GetTokenInformation(token.get(), TokenGroups, groups_buf.get(), size, &size)) {
    const auto* groups = reinterpret_cast<const TOKEN_GROUPS*>(groups_buf.get());
    for (DWORD i = 0; i < groups->GroupCount && !sid; ++i) {
      if ((groups->Groups[i].Attributes & SE_GROUP_LOGON_ID) == SE_GROUP_LOGON_ID) sid = groups->Groups[i].Sid;
    }
  }
  size = 0;
  GetTokenInformation(token.get(), TokenUser, nullptr, 0, &size);
  std::unique_ptr<char[]> user_buf(new char[size ? size : 1]);
  if (!sid && size && GetTokenInformation(token.get(), TokenUser, user_buf.get(), size, &size)) {
    sid = reinterpret_cast<const TOKEN_USER*>(user_buf.get())->User.Sid;
  }
  wchar_t* text = nullptr;
  if (!sid || !ConvertSidToStringSidW(sid, &text)) return {};
  std::wstring sddl = L"D:P(A;;GA;;;" + std::wstring(text) + L")";
  LocalFree(text);
  return sddl;
}

// For tests only: a pause between making the second instance and waiting on it, as a
// descheduled thread has, so that Node's open comes first (tests/windows-node/sync-pipe.test.js).
// Test builds only (test_switches.hpp).
void test_pause_before_ready() {
  if constexpr (!test_hooks) return;
  wchar_t ms[8] = {};
  const DWORD n = GetEnvironmentVariableW(L"SPAWNHOST_HELPER_SYNC_PIPE_PAUSE_MS", ms, 8);
  if (n > 0 && n < 8) Sleep(static_cast<DWORD>(wcstoul(ms, nullptr, 10)));
}

DWORD parent_pid() {
  const os_handle snapshot(CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0));
  PROCESSENTRY32W entry{};
  entry.dwSize = sizeof entry;
  const DWORD self = GetCurrentProcessId();
  for (BOOL more = snapshot && Process32FirstW(snapshot.get(), &entry); more; more = Process32NextW(snapshot.get(), &entry)) {
    if (entry.th32ProcessID == self) return entry.th32ParentProcessID;
  }
  return 0;
}

// One overlapped call, waited for on `event`: true when it completed.
bool finish(HANDLE h, BOOL started, OVERLAPPED& ov, DWORD& n) {
  if (!started && GetLastError() != ERROR_IO_PENDING) return false;
  return GetOverlappedResult(h, &ov, &n, TRUE);
}

class sync_pipe {
 public:
  ~sync_pipe() {
    if (security_) LocalFree(security_);
  }

  std::error_code create(const char* name, os_handle& first) {
    const int wide = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, nullptr, 0);
    if (wide <= 0) return win32_error();
    name_.resize(static_cast<std::size_t>(wide));
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, name, -1, name_.data(), wide);
    const std::wstring sddl = owner_only_sddl();
    if (sddl.empty() || !ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &security_, nullptr)) {
      return win32_error();
    }
    node_pid_ = parent_pid();
    if (!node_pid_) return std::make_error_code(std::errc::no_such_process);
    first.reset(instance(FILE_FLAG_FIRST_PIPE_INSTANCE));
    return first ? std::error_code{} : win32_error();
  }

  // Steps 1 to 3 above, on `pipe` (instance 1), in a thread that may wait for ever.
  std::error_code handshake(HANDLE pipe) {
    const os_handle event(CreateEventW(nullptr, TRUE, FALSE, nullptr));
    if (!event) return win32_error();
    if (const std::error_code ec = accept_node(pipe, event.get())) return ec;
    std::uint64_t value = 0;
    for (DWORD at = 0, n = 0; at < sizeof value; at += n) {
      OVERLAPPED ov{};
      ov.hEvent = event.get();
      auto* into = reinterpret_cast<char*>(&value) + at;
      if (!finish(pipe, ReadFile(pipe, into, sizeof value - at, nullptr, &ov), ov, n) || n == 0) return win32_error();
    }
    if (const std::error_code ec = make_nonblocking(static_cast<std::uintptr_t>(value))) return ec;
    const os_handle ready(instance(0));
    if (!ready) return win32_error();
    test_pause_before_ready();
    return accept_node(ready.get(), event.get());
  }

 private:
  HANDLE instance(DWORD flags) {
    SECURITY_ATTRIBUTES sa{sizeof sa, security_, FALSE};
    return CreateNamedPipeW(name_.c_str(), PIPE_ACCESS_DUPLEX | FILE_FLAG_OVERLAPPED | flags, pipe_type, 2,
                            reply_buffer_bytes, request_buffer_bytes, 0, &sa);
  }

  // Waits for a client on `pipe`; one that is not Node is disconnected.
  std::error_code accept_node(HANDLE pipe, HANDLE event) {
    for (;;) {
      OVERLAPPED ov{};
      ov.hEvent = event;
      DWORD n = 0;
      const bool connected = ConnectNamedPipe(pipe, &ov) || GetLastError() == ERROR_PIPE_CONNECTED || finish(pipe, FALSE, ov, n);
      // ERROR_NO_DATA: a client came and went before we looked.
      if (!connected && GetLastError() != ERROR_NO_DATA) return win32_error();
      ULONG client = 0;
      if (connected && GetNamedPipeClientProcessId(pipe, &client) && client == node_pid_) return {};
      DisconnectNamedPipe(pipe);
    }
  }

  // `value` is Node's handle to its end: PIPE_NOWAIT holds for that end, whichever
  // handle sets it, so our duplicate does.
  std::error_code make_nonblocking(std::uintptr_t value) {
    const os_handle node(OpenProcess(PROCESS_DUP_HANDLE, FALSE, node_pid_));
    HANDLE dup = nullptr;
    if (!node || !DuplicateHandle(node.get(), reinterpret_cast<HANDLE>(value), GetCurrentProcess(), &dup, 0, FALSE,
                                  DUPLICATE_SAME_ACCESS)) {
      return win32_error();
    }
    const os_handle theirs(dup);
    ULONG server = 0;
    DWORD flags = 0;
    // It must be a client's end of a pipe we serve (our children's pipes are not Node's).
    if (!GetNamedPipeServerProcessId(dup, &server) || server != GetCurrentProcessId() ||
        !GetNamedPipeInfo(dup, &flags, nullptr, nullptr, nullptr) || (flags & PIPE_SERVER_END)) {
      return win32_error(ERROR_INVALID_HANDLE);
    }
    DWORD mode = PIPE_READMODE_BYTE | PIPE_NOWAIT;
    return SetNamedPipeHandleState(dup, &mode, nullptr, nullptr) ? std::error_code{} : win32_error();
  }

  std::wstring name_;
  PSECURITY_DESCRIPTOR security_ = nullptr;
  DWORD node_pid_ = 0;
};

int crt_fd(HANDLE h) {
  const int fd = _open_osfhandle(reinterpret_cast<intptr_t>(h), _O_BINARY);
  if (fd < 0) CloseHandle(h);
  return fd;
}

}  // namespace

// Node's end of a libuv pipe has no descriptor here: the sync channel is the pipe below.
std::error_code open_sync_socket(int, sync_socket_ends&) noexcept {
  return std::make_error_code(std::errc::not_supported);
}

std::error_code open_sync_pipe(const char* name, sync_socket_ends& out) noexcept {
  auto pipe = std::make_shared<sync_pipe>();
  os_handle first;
  if (const std::error_code ec = pipe->create(name, first)) return ec;
  HANDLE second = nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), first.get(), GetCurrentProcess(), &second, 0, FALSE, DUPLICATE_SAME_ACCESS)) {
    return win32_error();
  }
  const HANDLE raw = first.get();
  const int request = crt_fd(first.release());
  const int reply = crt_fd(second);
  if (request < 0 || reply < 0) {
    if (request >= 0) _close(request);
    if (reply >= 0) _close(reply);
    return std::make_error_code(std::errc::too_many_files_open);
  }
  auto gate = std::make_shared<blocking_stream::first_io>();
  gate->prepare = [pipe, raw] { return pipe->handshake(raw); };
  blocking_stream::hold_first_io(request, gate);
  blocking_stream::hold_first_io(reply, gate);
  out.request = request;
  out.reply = reply;
  return {};
}

}  // namespace spawnhost
