// Windows tree removal. Read-only files are made writable and deleted (a read-only
// attribute blocks DeleteFileW, not the user's intent to remove the tree), directory
// links and junctions are removed, never followed, and a file another process holds
// open without FILE_SHARE_DELETE fails the whole call with EBUSY (sharing violation) or
// EPERM (access denied), naming the call that failed.
#include <windows.h>

#include <string>

#include "launch/process.hpp"
#include "launch/remove_tree.hpp"
#include "windows/command_line.hpp"

namespace spawnhost {
namespace {

remove_result failed(const char* syscall, DWORD e = GetLastError()) {
  return {std::error_code(static_cast<int>(e), std::system_category()), syscall};
}

bool gone(DWORD e) { return e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND; }

remove_result remove_file(const std::wstring& path, DWORD attrs) {
  if (attrs & FILE_ATTRIBUTE_READONLY) SetFileAttributesW(path.c_str(), attrs & ~FILE_ATTRIBUTE_READONLY);
  if (DeleteFileW(path.c_str()) || gone(GetLastError())) return {};
  return failed("unlink");
}

remove_result remove_entry(const std::wstring& path, DWORD attrs) {
  if (!(attrs & FILE_ATTRIBUTE_DIRECTORY)) return remove_file(path, attrs);
  if (!(attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {  // a real directory: empty it first
    WIN32_FIND_DATAW entry;
    const HANDLE find = FindFirstFileW((path + L"\\*").c_str(), &entry);
    if (find == INVALID_HANDLE_VALUE) {
      if (!gone(GetLastError())) return failed("scandir");
    } else {
      remove_result result;
      do {
        const std::wstring name = entry.cFileName;
        if (name == L"." || name == L"..") continue;
        result = remove_entry(path + L"\\" + name, entry.dwFileAttributes);
      } while (!result.error && FindNextFileW(find, &entry));
      FindClose(find);
      if (result.error) return result;
    }
  }
  if (attrs & FILE_ATTRIBUTE_READONLY) SetFileAttributesW(path.c_str(), attrs & ~FILE_ATTRIBUTE_READONLY);
  if (RemoveDirectoryW(path.c_str()) || gone(GetLastError())) return {};
  return failed("rmdir");
}

}  // namespace

remove_result remove_tree(const std::string& path) noexcept try {
  std::wstring wide = windows::widen(path);
  while (wide.size() > 3 && (wide.back() == L'\\' || wide.back() == L'/')) wide.pop_back();
  const DWORD attrs = GetFileAttributesW(wide.c_str());
  if (attrs == INVALID_FILE_ATTRIBUTES) {
    const DWORD e = GetLastError();
    return gone(e) ? remove_result{} : failed("lstat", e);
  }
  return remove_entry(wide, attrs);
} catch (const std::bad_alloc&) {
  return {std::make_error_code(std::errc::not_enough_memory), "lstat"};
}

}  // namespace spawnhost
