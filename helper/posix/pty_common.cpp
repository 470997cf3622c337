#include "posix/pty_common.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include <cerrno>

#include "posix/launch_common.hpp"
#include "pty/terminal.hpp"

namespace spawnhost {
namespace {

bool stdio_is(const spawn_options& o, protocol::stdio_kind a, protocol::stdio_kind b, protocol::stdio_kind c) {
  return o.stdio[0] == a && o.stdio[1] == b && o.stdio[2] == c;
}

}  // namespace

int check_terminal_request(const spawn_options& o, bool& node_holds_master) noexcept {
  using kind = protocol::stdio_kind;
  node_holds_master = stdio_is(o, kind::given, kind::ignore, kind::ignore);
  if (!node_holds_master && !stdio_is(o, kind::pipe, kind::pipe, kind::ignore)) return EINVAL;
  if (o.ipc || o.detached || (o.handover && !node_holds_master)) return EINVAL;
  return 0;
}

void set_terminal_modes(int slave) noexcept {
  termios t{};
  if (tcgetattr(slave, &t) < 0) return;
  t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t.c_oflag = OPOST | ONLCR;
  t.c_cflag = CREAD | CS8 | HUPCL;
  t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t.c_cc[VEOF] = 4, t.c_cc[VEOL] = 0xff, t.c_cc[VEOL2] = 0xff, t.c_cc[VERASE] = 0x7f;
  t.c_cc[VWERASE] = 23, t.c_cc[VKILL] = 21, t.c_cc[VREPRINT] = 18, t.c_cc[VINTR] = 3;
  t.c_cc[VQUIT] = 0x1c, t.c_cc[VSUSP] = 26, t.c_cc[VSTART] = 17, t.c_cc[VSTOP] = 19;
  t.c_cc[VLNEXT] = 22, t.c_cc[VDISCARD] = 15, t.c_cc[VMIN] = 1, t.c_cc[VTIME] = 0;
  cfsetispeed(&t, B38400);
  cfsetospeed(&t, B38400);
  tcsetattr(slave, TCSANOW, &t);
}

launched_process hand_on_master(launched_process out, unique_fd master, bool node_holds_master) noexcept {
  if (!node_holds_master) {
    out.stdio[0].reset(fcntl(master.get(), F_DUPFD_CLOEXEC, 3));
    out.stdio[1].reset(fcntl(master.get(), F_DUPFD_CLOEXEC, 3));
    if (!out.stdio[0] || !out.stdio[1]) {
      const int e = errno;
      kill(out.pid, SIGKILL);
      waitpid(out.pid, nullptr, 0);
      return launch_failure("dup", e);
    }
  }
  out.terminal.reset(master.release());
  return out;
}

// Both launchers' terminals are POSIX ones: TIOCSWINSZ on the master, after which the
// kernel sends SIGWINCH to the terminal's foreground group.
std::error_code resize_terminal(native_handle terminal, std::uint16_t cols, std::uint16_t rows) noexcept {
  winsize size{};
  size.ws_col = cols;
  size.ws_row = rows;
  if (ioctl(terminal, TIOCSWINSZ, &size) < 0) return {errno, std::generic_category()};
  return {};
}

}  // namespace spawnhost
