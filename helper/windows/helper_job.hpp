// The helper's job object (process.cpp): every non-detached child is put in it, so that
// it dies with the helper (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). Shared with the
// terminal launcher (pty/launch_terminal.cpp). Null when the system gave none.
#pragma once
#include <windows.h>

namespace spawnhost::windows {

HANDLE helper_job_object() noexcept;

}  // namespace spawnhost::windows
