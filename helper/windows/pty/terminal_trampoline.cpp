// Windows has no terminal trampoline (pty/terminal.hpp): its terminal launcher, when
// there is one, attaches the console as it creates the process.
#include "pty/terminal.hpp"

namespace spawnhost {

int run_terminal_trampoline(int, char**) noexcept { return -1; }

}  // namespace spawnhost
