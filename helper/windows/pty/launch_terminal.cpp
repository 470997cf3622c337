// Windows terminal children (pty/terminal.hpp) on a ConPTY pseudo console
// (pseudo_console.hpp; docs/pty.md, "Windows").
//
// Two pipes join the helper to the console host: typed bytes go in through one, what
// the console shows (VT sequences) comes out of the other. Our ends are overlapped
// named pipes on the io_context's completion port, as every Windows child's stdio
// (process.cpp): the relay writes the first as the child's stdin and reads the second
// as its stdout. The host's ends are synchronous, as CreatePseudoConsole asks, and
// closed here once the host holds its own copies, so that the host's exit ends the
// output. The child is started as process.cpp starts children (the same command line,
// environment block and PATH search; suspended until it is in the helper's job), with
// the console as the one attribute, inheriting no handle of ours: its standard handles
// are left empty (STARTF_USESTDHANDLES with none), which Windows fills with the
// console's, and which keeps it off the helper's own stdio.
#include <windows.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <vector>

#include "pty/terminal.hpp"
#include "windows/command_line.hpp"
#include "windows/helper_job.hpp"
#include "windows/launch_command.hpp"
#include "windows/pty/pseudo_console.hpp"

#ifndef PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE
#define PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE 0x00020016
#endif

namespace spawnhost {
namespace {

std::error_code win32_error(DWORD e = GetLastError()) { return {static_cast<int>(e), std::system_category()}; }

launched_process fail(const char* stage, std::error_code error) { return windows::launch_failure(stage, error); }

// One pipe between the helper and the console host: ours overlapped, the host's
// synchronous and not inheritable (CreatePseudoConsole duplicates it into the host).
std::error_code make_console_pipe(bool host_reads, os_handle& ours, os_handle& host) {
  static std::atomic<unsigned> counter{0};
  wchar_t name[80];
  std::swprintf(name, 80, L"\\\\.\\pipe\\spawnhost-pty-%lu-%u", GetCurrentProcessId(), counter++);
  const DWORD direction = host_reads ? PIPE_ACCESS_OUTBOUND : PIPE_ACCESS_INBOUND;
  constexpr DWORD buffer = 64 * 1024;
  ours.reset(CreateNamedPipeW(name, direction | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                              PIPE_TYPE_BYTE | PIPE_READMODE_BYTE | PIPE_WAIT, 1, buffer, buffer, 0, nullptr));
  if (!ours) return win32_error();
  host.reset(CreateFileW(name, host_reads ? GENERIC_READ | FILE_WRITE_ATTRIBUTES : GENERIC_WRITE | FILE_READ_ATTRIBUTES, 0,
                         nullptr, OPEN_EXISTING, 0, nullptr));
  if (!host) return win32_error();
  return {};
}

// The attribute list holding the console.
struct console_attribute {
  std::vector<char> storage;
  bool initialized = false;
  LPPROC_THREAD_ATTRIBUTE_LIST get() { return reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(storage.data()); }
  std::error_code build(windows::conpty::console_handle pseudo) {
    SIZE_T size = 0;
    InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
    storage.resize(size);
    if (!InitializeProcThreadAttributeList(get(), 1, 0, &size)) return win32_error();
    initialized = true;
    // The value is the HPCON itself, not a pointer to it.
    if (!UpdateProcThreadAttribute(get(), 0, PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, pseudo, sizeof pseudo, nullptr, nullptr))
      return win32_error();
    return {};
  }
  ~console_attribute() {
    if (initialized) DeleteProcThreadAttributeList(get());
  }
};

}  // namespace

launched_process launch_terminal(const spawn_request& r, const launch_context&) noexcept try {
  const auto& o = r.options;
  if (!windows::conpty::available()) return fail("pty", std::make_error_code(std::errc::not_supported));
  // The relay's two ends are the terminal; Node never holds a console's pipes itself.
  if (o.stdio[0] != protocol::stdio_kind::pipe || o.stdio[1] != protocol::stdio_kind::pipe)
    return fail("pty", std::make_error_code(std::errc::invalid_argument));

  // As for every Windows child: no batch file without a shell (CVE-2024-27980), no uid,
  // the program found and quoted as libuv does.
  windows::launch_command plan;
  const char* stage = "spawn";
  if (const auto ec = windows::plan_launch(r, plan, stage)) return fail(stage, ec);

  // Declared before `out`: on a failure below, our pipe ends (in `out`) close first, so
  // that closing the console never waits for output nobody will read.
  windows::conpty::console pseudo;
  launched_process out;
  os_handle host_input, host_output;
  if (const auto ec = make_console_pipe(true, out.stdio[0], host_input)) return fail("pipe", ec);
  if (const auto ec = make_console_pipe(false, out.stdio[1], host_output)) return fail("pipe", ec);
  if (const auto ec = windows::conpty::console::create((*o.pty)[0], (*o.pty)[1], host_input.get(), host_output.get(), pseudo))
    return fail("pty", ec);
  host_input.reset();
  host_output.reset();

  console_attribute attribute;
  if (const auto ec = attribute.build(pseudo.get())) return fail("pty", ec);
  STARTUPINFOEXW startup{};
  startup.StartupInfo.cb = sizeof startup;
  startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;  // and none given: the console's
  startup.lpAttributeList = attribute.get();
  const DWORD flags = CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT | CREATE_SUSPENDED;

  PROCESS_INFORMATION info{};
  const auto t0 = std::chrono::steady_clock::now();
  if (!windows::create_process(plan, FALSE, flags, &startup.StartupInfo, &info)) {
    const DWORD e = GetLastError();
    return fail("exec", win32_error(e == ERROR_DIRECTORY ? ERROR_PATH_NOT_FOUND : e));  // as process.cpp
  }
  os_handle thread(info.hThread);
  out.exit_handle.reset(info.hProcess);
  const HANDLE job = windows::helper_job_object();
  if (job && !AssignProcessToJobObject(job, info.hProcess)) {
    const auto ec = win32_error();
    TerminateProcess(info.hProcess, 1);
    return fail("job", ec);
  }
  if (const auto ec = windows::conpty::keep_until_exit(std::move(pseudo), info.hProcess, out.terminal)) {
    TerminateProcess(info.hProcess, 1);
    return fail("pty", ec);
  }
  ResumeThread(thread.get());
  out.create_us = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count());
  out.pid = static_cast<int>(info.dwProcessId);
  return out;
} catch (const std::bad_alloc&) {
  return fail("memory", std::make_error_code(std::errc::not_enough_memory));
}

std::error_code resize_terminal(native_handle terminal, std::uint16_t cols, std::uint16_t rows) noexcept {
  return windows::conpty::resize(terminal, cols, rows);
}

}  // namespace spawnhost
