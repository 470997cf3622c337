// Windows process creation with CreateProcessW, as libuv does it for Node (see
// windows/command_line.hpp for the strings), plus what libuv leaves out:
// - only the child's own stdio handles are inherited (PROC_THREAD_ATTRIBUTE_HANDLE_LIST),
//   so launches running at once on the pool never leak pipe ends into each other's
//   children, which would hold their pipes open past their exit;
// - the child starts suspended and runs only once it is in the helper's job object
//   (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), so no grandchild can escape the job first.
// Piped stdio are named pipes: our end overlapped (on the io_context's completion
// port), the child's end synchronous and inheritable, as libuv makes them; handed over,
// the child's end is a connection to Node's own pipe (windows/node_pipes.hpp). A forked
// child's IPC channel is a duplex pipe overlapped at both ends (libuv's child opens it
// so), given as C runtime descriptor 3 (crt_descriptors.hpp); its bytes are relayed
// in libuv's framing (ipc_frames.hpp, child_pipe::use_as_channel).
#include <windows.h>
#include <io.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <vector>

#include "launch/process.hpp"
#include "launch/signal_table.hpp"
#include "windows/command_line.hpp"
#include "windows/crt_descriptors.hpp"
#include "windows/helper_job.hpp"
#include "windows/launch_command.hpp"
#include "windows/node_pipes.hpp"

namespace spawnhost {
namespace {

using windows::widen;

constexpr DWORD pipe_buffer_size = 64 * 1024;
HANDLE helper_job = nullptr;  // created by prepare_helper_process, closed by our exit

std::error_code win32_error(DWORD e = GetLastError()) { return {static_cast<int>(e), std::system_category()}; }

launched_process fail(const char* stage, std::error_code error) { return windows::launch_failure(stage, error); }

enum class pipe_use { child_reads, child_writes, channel };

// One pipe between us and the child: its stdin, an output, or its IPC channel.
std::error_code make_pipe(pipe_use use, os_handle& ours, os_handle& theirs) {
  static std::atomic<unsigned> counter{0};
  wchar_t name[80];
  std::swprintf(name, 80, L"\\\\.\\pipe\\spawnhost-%lu-%u", GetCurrentProcessId(), counter++);
  const bool child_reads = use == pipe_use::child_reads;
  const DWORD direction = use == pipe_use::channel ? PIPE_ACCESS_DUPLEX : child_reads ? PIPE_ACCESS_OUTBOUND : PIPE_ACCESS_INBOUND;
  const DWORD our_access = direction | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE;
  ours.reset(CreateNamedPipeW(name, our_access, PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 1, pipe_buffer_size,
                              pipe_buffer_size, 0, nullptr));
  if (!ours) return win32_error();
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  // FILE_WRITE_ATTRIBUTES / FILE_READ_ATTRIBUTES let the child change or query the
  // pipe's mode (SetNamedPipeHandleState), as libuv grants.
  // libuv opens a channel as an overlapped pipe and refuses one that is not.
  const DWORD their_access = use == pipe_use::channel ? GENERIC_READ | GENERIC_WRITE
                             : child_reads              ? GENERIC_READ | FILE_WRITE_ATTRIBUTES
                                                        : GENERIC_WRITE | FILE_READ_ATTRIBUTES;
  const DWORD their_flags = use == pipe_use::channel ? FILE_FLAG_OVERLAPPED : 0;
  theirs.reset(CreateFileW(name, their_access, 0, &inheritable, OPEN_EXISTING, their_flags, nullptr));
  if (!theirs) return win32_error();
  return {};
}

std::error_code open_null(bool child_reads, os_handle& theirs) {
  SECURITY_ATTRIBUTES inheritable{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  theirs.reset(CreateFileW(L"NUL", child_reads ? GENERIC_READ : GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                           &inheritable, OPEN_EXISTING, 0, nullptr));
  return theirs ? std::error_code{} : win32_error();
}

// An inheritable duplicate of one of the helper's C runtime descriptors ("inherit").
std::error_code duplicate_inherited(int crt_fd, os_handle& theirs) {
  const HANDLE h = crt_fd >= 0 ? reinterpret_cast<HANDLE>(_get_osfhandle(crt_fd)) : INVALID_HANDLE_VALUE;
  if (h == INVALID_HANDLE_VALUE || h == nullptr) return std::make_error_code(std::errc::bad_file_descriptor);
  HANDLE copy = nullptr;
  if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &copy, 0, TRUE, DUPLICATE_SAME_ACCESS))
    return win32_error();
  theirs.reset(copy);
  return {};
}

std::uint64_t micros_since(std::chrono::steady_clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
}

// The attribute list that limits inheritance to `handles`.
struct handle_list {
  std::vector<HANDLE> handles;
  std::vector<char> storage;
  LPPROC_THREAD_ATTRIBUTE_LIST get() { return reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage.data()); }
  std::error_code build() {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    storage.resize(size);
    if (!InitializeProcThreadAttributeList(get(), 1, 0, &size)) return win32_error();
    if (!UpdateProcThreadAttribute(get(), 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles.data(),
                                   handles.size() * sizeof(HANDLE), nullptr, nullptr)) {
      const auto ec = win32_error();
      DeleteProcThreadAttributeList(get());
      return ec;
    }
    return {};
  }
  ~handle_list() {
    if (!storage.empty()) DeleteProcThreadAttributeList(get());
  }
};

}  // namespace

launched_process launch_process(const spawn_request& r, const launch_context& context) noexcept try {
  const auto& o = r.options;
  windows::launch_command plan;
  const char* stage = "spawn";
  if (const auto ec = windows::plan_launch(r, plan, stage)) return fail(stage, ec);

  launched_process out;
  os_handle theirs[3];
  for (int fd = 0; fd < 3; ++fd) {
    const bool child_reads = fd == 0;
    std::error_code ec;
    switch (o.stdio[fd]) {
      // Handed over: the child's end is a connection to Node's own pipe, and we keep no end.
      case protocol::stdio_kind::pipe:
        ec = o.handover ? windows::open_node_pipe(context.stream_pipe, r.id, o.stream_token, fd, theirs[fd])
                        : make_pipe(child_reads ? pipe_use::child_reads : pipe_use::child_writes, out.stdio[fd], theirs[fd]);
        break;
      case protocol::stdio_kind::ignore: ec = open_null(child_reads, theirs[fd]); break;
      case protocol::stdio_kind::inherit: ec = duplicate_inherited(context.inherited[fd], theirs[fd]); break;
      // No IPC channel to Node here, so no descriptor of Node's: the session refuses it.
      case protocol::stdio_kind::given: ec = std::make_error_code(std::errc::bad_file_descriptor); break;
    }
    if (ec) return fail("pipe", ec);
  }

  os_handle their_channel;
  if (o.ipc) {
    if (const auto ec = make_pipe(pipe_use::channel, out.channel, their_channel)) return fail("pipe", ec);
  }

  handle_list inherit;
  for (const HANDLE h : {theirs[0].get(), theirs[1].get(), theirs[2].get(), their_channel.get()}) {
    if (h && std::find(inherit.handles.begin(), inherit.handles.end(), h) == inherit.handles.end())
      inherit.handles.push_back(h);
  }
  if (const auto ec = inherit.build()) return fail("spawn", ec);

  STARTUPINFOEXW startup{};
  startup.StartupInfo.cb = sizeof startup;
  startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  startup.StartupInfo.hStdInput = theirs[0].get();
  startup.StartupInfo.hStdOutput = theirs[1].get();
  startup.StartupInfo.hStdError = theirs[2].get();
  startup.lpAttributeList = inherit.get();
  // With a channel, the C runtime's table, as libuv passes it: the child's C runtime
  // (and so Node's NODE_CHANNEL_FD) finds descriptor 3 there, and 0-2 as its stdio.
  std::vector<BYTE> crt_block;
  if (their_channel) {
    crt_block = windows::crt_descriptor_block({theirs[0].get(), theirs[1].get(), theirs[2].get(), their_channel.get()});
    startup.StartupInfo.cbReserved2 = static_cast<WORD>(crt_block.size());
    startup.StartupInfo.lpReserved2 = crt_block.data();
  }
  if (o.windows_hide) {
    startup.StartupInfo.dwFlags |= STARTF_USESHOWWINDOW;
    startup.StartupInfo.wShowWindow = SW_HIDE;
  }
  DWORD flags = CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT | CREATE_SUSPENDED;
  if (o.windows_hide) flags |= CREATE_NO_WINDOW;
  // Detached: no console of ours, a process group of its own, and outside our job so
  // it outlives the helper (libuv's flags for `detached`).
  if (o.detached) flags |= DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_BREAKAWAY_FROM_JOB;

  PROCESS_INFORMATION info{};
  const auto t0 = std::chrono::steady_clock::now();
  const BOOL created = windows::create_process(plan, TRUE, flags, &startup.StartupInfo, &info);
  if (!created) {
    const DWORD e = GetLastError();
    // A missing cwd reads as ENOENT, like libuv; anything else by libuv's table.
    return fail("exec", win32_error(e == ERROR_DIRECTORY ? ERROR_PATH_NOT_FOUND : e));
  }
  os_handle thread(info.hThread);
  out.exit_handle.reset(info.hProcess);
  if (!o.detached && helper_job && !AssignProcessToJobObject(helper_job, info.hProcess)) {
    const auto ec = win32_error();
    TerminateProcess(info.hProcess, 1);
    return fail("job", ec);
  }
  ResumeThread(thread.get());
  out.create_us = micros_since(t0);
  out.pid = static_cast<int>(info.dwProcessId);
  return out;
} catch (const std::bad_alloc&) {
  return fail("memory", std::make_error_code(std::errc::not_enough_memory));
}

std::error_code reap_process(int, native_handle exit_handle, exit_status& out) noexcept {
  DWORD code = 0;
  if (!GetExitCodeProcess(exit_handle, &code)) return win32_error();
  out.code = static_cast<std::int64_t>(code);
  return {};
}

// As libuv's uv_process_kill in Node 20.20 and later: every signal Node knows (the
// session refuses other names) ends the process with TerminateProcess (exit code 1);
// 0 asks whether it still runs. How the end is reported: terminated_signal below.
// (Node's own test-child-process-kill sends SIGHUP, and waits for that end.)
// A process that has already exited is no such process, before TerminateProcess is
// tried: Windows refuses to end it (ERROR_ACCESS_DENIED), but wine 8 says yes, and the
// child that ended by itself, its exit not yet reaped, was then reported as killed
// (tests/windows-node/exit-then-kill.test.js).
std::error_code signal_process(int, native_handle exit_handle, int signal) noexcept {
  const auto exited = [&] { return WaitForSingleObject(exit_handle, 0) == WAIT_OBJECT_0; };
  if (signal < 0) return std::make_error_code(std::errc::invalid_argument);
  if (exited()) return std::make_error_code(std::errc::no_such_process);
  if (signal == 0) return {};
  if (TerminateProcess(exit_handle, 1)) return {};
  if (exited()) return std::make_error_code(std::errc::no_such_process);
  return win32_error();
}

// libuv reports SIGINT, SIGQUIT, SIGKILL and SIGTERM as sent, and every other signal
// as SIGKILL (Windows Node: kill("SIGHUP") gives exit(null, "SIGKILL")).
int terminated_signal(int signal) noexcept {
  switch (signal) {
    case 2: case 3: case 9: case 15: return signal;
    default: return 9;
  }
}

namespace {
// Node's os.constants.signals on Windows.
constexpr named_signal signals[] = {
    {"SIGHUP", 1}, {"SIGINT", 2}, {"SIGQUIT", 3}, {"SIGILL", 4}, {"SIGFPE", 8}, {"SIGKILL", 9},
    {"SIGSEGV", 11}, {"SIGTERM", 15}, {"SIGBREAK", 21}, {"SIGABRT", 22}, {"SIGWINCH", 28},
};
}  // namespace

std::optional<int> signal_number(std::string_view name) noexcept { return number_in(signals, name); }

std::optional<std::string_view> signal_name(int number) noexcept { return name_in(signals, number); }

std::uint64_t current_process_id() noexcept { return GetCurrentProcessId(); }

HANDLE windows::helper_job_object() noexcept { return helper_job; }

helper_origin prepare_helper_process(bool) noexcept {
  // No error dialogs from us or (inherited) our children: a missing DLL must fail, not
  // wait for a click on a machine nobody watches.
  SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX | SEM_NOOPENFILEERRORBOX);
  // Non-detached children die with the helper: the job's last handle is ours, and the
  // system closes it when we exit however we exit. Detached ones may break away.
  helper_job = CreateJobObjectW(nullptr, nullptr);
  if (helper_job) {
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_BREAKAWAY_OK;
    if (!SetInformationJobObject(helper_job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
      CloseHandle(helper_job);
      helper_job = nullptr;
      std::fprintf(stderr, "spawnhost-helper: no job object (error %lu): children will not die with the helper\n",
                   GetLastError());
    }
  }
  return {};  // no process groups, and no zombies to leave behind: nothing to fork away from
}

}  // namespace spawnhost
