// windows/launch_command.hpp: the strings of one launch, as libuv builds them for Node.
#include "windows/launch_command.hpp"

#include <windows.h>

#include <cstdio>
#include <string_view>
#include <vector>

#include "windows/command_line.hpp"
#include "windows/error_names.hpp"

namespace spawnhost::windows {
namespace {

std::wstring current_directory() {
  const DWORD n = GetCurrentDirectoryW(0, nullptr);
  std::wstring cwd(n, L'\0');
  cwd.resize(GetCurrentDirectoryW(n, cwd.data()));
  return cwd;
}

// The helper's own PATH: where a program is looked for when the request's environment
// has none (or there is no request environment), as libuv uses the parent's.
std::wstring helper_path_variable() {
  const DWORD n = GetEnvironmentVariableW(L"PATH", nullptr, 0);
  if (n == 0) return {};
  std::wstring path(n, L'\0');
  path.resize(GetEnvironmentVariableW(L"PATH", path.data(), n));
  return path;
}

}  // namespace

std::error_code plan_launch(const spawn_request& r, launch_command& out, const char*& stage) {
  const auto& o = r.options;
  // Since CVE-2024-27980 Node will not start a batch file without a shell: CreateProcess
  // would run it through cmd.exe, whose parsing no quoting can make safe.
  if (is_batch_file(r.file)) {
    stage = "spawn";
    return std::make_error_code(std::errc::invalid_argument);
  }
  if (o.uid || o.gid) {
    stage = "setuid";
    return std::make_error_code(std::errc::not_supported);
  }
  out.cwd = o.cwd ? widen(*o.cwd) : current_directory();
  std::wstring path;
  if (o.env) path = find_path_variable(*o.env).value_or(helper_path_variable());
  else path = helper_path_variable();
  auto application = search_path(widen(r.file), out.cwd, path);
  if (!application) {
    stage = "exec";
    return std::make_error_code(std::errc::no_such_file_or_directory);
  }
  out.application = std::move(*application);
  std::vector<std::string> argv;
  argv.reserve(r.args.size() + 1);
  argv.push_back(o.argv0.value_or(r.file));
  argv.insert(argv.end(), r.args.begin(), r.args.end());
  out.command = command_line(argv, o.windows_verbatim_arguments);
  out.environment = o.env ? environment_block(*o.env) : std::wstring{};
  return {};
}

launched_process launch_failure(const char* stage, std::error_code error) {
  if (error.category() == std::system_category() &&
      std::string_view(win32_error_name(static_cast<unsigned long>(error.value()))) == "UNKNOWN") {
    std::fprintf(stderr, "spawnhost-helper: launch failed at stage %s with Win32 error %d\n", stage, error.value());
  }
  launched_process out;
  out.error = error;
  out.stage = stage;
  return out;
}

BOOL create_process(launch_command& plan, BOOL inherit_handles, DWORD flags, STARTUPINFOW* startup,
                    PROCESS_INFORMATION* info) {
  for (int attempt = 1;; ++attempt) {
    if (CreateProcessW(plan.application.c_str(), plan.command.data(), nullptr, nullptr, inherit_handles, flags,
                       plan.environment.empty() ? nullptr : plan.environment.data(), plan.cwd.c_str(), startup, info)) {
      return TRUE;
    }
    if (GetLastError() != ERROR_INTERNAL_ERROR || attempt == 2) return FALSE;
  }
}

}  // namespace spawnhost::windows
