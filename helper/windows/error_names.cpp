#include "windows/error_names.hpp"

#include <windows.h>

#include <cerrno>

#include "launch/process.hpp"

namespace spawnhost {
namespace windows {

const char* win32_error_name(unsigned long code) noexcept {
  switch (code) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_NAME: case ERROR_INVALID_DRIVE:
    case ERROR_BAD_PATHNAME: case ERROR_MOD_NOT_FOUND: case ERROR_DIRECTORY:
      return "ENOENT";
    case ERROR_ACCESS_DENIED: case ERROR_INVALID_ACCESS: case ERROR_PRIVILEGE_NOT_HELD:
      return "EPERM";
    case 740 /* ERROR_ELEVATION_REQUIRED */: case ERROR_CANT_ACCESS_FILE:
      return "EACCES";
    case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: case ERROR_BUSY: case ERROR_PIPE_BUSY:
      return "EBUSY";
    case ERROR_DIR_NOT_EMPTY: return "ENOTEMPTY";
    case ERROR_ALREADY_EXISTS: case ERROR_FILE_EXISTS: return "EEXIST";
    case ERROR_BAD_EXE_FORMAT: case ERROR_EXE_MACHINE_TYPE_MISMATCH: return "EFTYPE";
    case ERROR_INVALID_PARAMETER: case ERROR_INVALID_FLAGS: return "EINVAL";
    case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return "ENOMEM";
    case ERROR_TOO_MANY_OPEN_FILES: return "EMFILE";
    case ERROR_FILENAME_EXCED_RANGE: case ERROR_BUFFER_OVERFLOW: return "ENAMETOOLONG";
    // Writing to a pipe whose reader is gone: libuv says EOF for a broken pipe on read
    // and EPIPE on write; only writes ask for a name here.
    case ERROR_NO_DATA: case ERROR_BROKEN_PIPE: return "EPIPE";
    case ERROR_OPERATION_ABORTED: return "ECANCELED";
    case ERROR_INVALID_HANDLE: return "EBADF";
    case ERROR_NOT_SUPPORTED: return "ENOTSUP";
    case ERROR_WRITE_PROTECT: return "EROFS";
    case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return "ENOSPC";
    case ERROR_NOT_SAME_DEVICE: return "EXDEV";
    default: return "UNKNOWN";
  }
}

}  // namespace windows

const char* errno_name(int error) noexcept {
  switch (error) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ENOMEM: return "ENOMEM";
    case E2BIG: return "E2BIG";
    case EBADF: return "EBADF";
    case EBUSY: return "EBUSY";
    case EMFILE: return "EMFILE";
    case EPIPE: return "EPIPE";
    case ESRCH: return "ESRCH";
    case ENOSYS: return "ENOSYS";
    case ENOTSUP: return "ENOTSUP";
    case ECANCELED: return "ECANCELED";
    case ETIMEDOUT: return "ETIMEDOUT";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EEXIST: return "EEXIST";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    default: return "UNKNOWN";
  }
}

const char* error_name(const std::error_code& error) noexcept {
  if (error.category() == std::system_category()) return windows::win32_error_name(static_cast<unsigned long>(error.value()));
  return errno_name(error.value());
}

}  // namespace spawnhost
