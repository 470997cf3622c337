// Names for the errors the Windows backend reports: errno values (generic category) and
// Win32 error codes (system category), the latter mapped to errno names as libuv's
// uv_translate_sys_error does, so Node sees the codes it sees from child_process.
#pragma once
#include <system_error>

namespace spawnhost::windows {

const char* win32_error_name(unsigned long code) noexcept;

}  // namespace spawnhost::windows
