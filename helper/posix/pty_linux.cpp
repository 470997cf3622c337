// Linux terminal children (pty/terminal.hpp). The master is /dev/ptmx, opened here or
// by Node (stdio[0] kind given: Node then reads and writes it itself); the slave comes
// from the master (TIOCGPTPEER: no path lookup to race), gets node-pty's termios and
// the window size, and becomes the child's fds 0-2 and controlling terminal.
//
// The child is created as every Linux child is (clone_child.hpp), in a session of its
// own whose controlling terminal is the slave, and with the parent-death signal, so
// that no terminal child outlives the helper.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include "clone_child.hpp"
#include "launch_common.hpp"
#include "launch_pool.hpp"
#include "pty/terminal.hpp"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

namespace spawnhost {
namespace {

// node-pty's terminal settings (its pty.cc), so that programs see what they saw there:
// UTF-8 input (IUTF8: a backspace erases a whole character), ^C/^D/^Z and the rest.
void set_terminal_modes(int slave) {
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

bool stdio_is(const spawn_options& o, protocol::stdio_kind a, protocol::stdio_kind b, protocol::stdio_kind c) {
  return o.stdio[0] == a && o.stdio[1] == b && o.stdio[2] == c;
}

}  // namespace

std::error_code resize_terminal(native_handle terminal, std::uint16_t cols, std::uint16_t rows) noexcept {
  winsize size{};
  size.ws_col = cols;
  size.ws_row = rows;
  if (ioctl(terminal, TIOCSWINSZ, &size) < 0) return {errno, std::generic_category()};
  return {};
}

launched_process launch_terminal(const spawn_request& r, const launch_context& context) noexcept {
  using kind = protocol::stdio_kind;
  const auto& o = r.options;
  const bool node_holds_master = stdio_is(o, kind::given, kind::ignore, kind::ignore);
  if (!node_holds_master && !stdio_is(o, kind::pipe, kind::pipe, kind::ignore)) return launch_failure("pty", EINVAL);
  // Never a master handed to Node as a piped end: Node aborts on a received tty.
  if (o.ipc || o.detached || (o.handover && !node_holds_master)) return launch_failure("pty", EINVAL);
  try {
    launched_process out;
    unique_fd master(node_holds_master ? fcntl(o.given_fds[0], F_DUPFD_CLOEXEC, 3)
                                       : open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK));
    if (!master) return launch_failure("pty", errno);
    const int unlock = 0;
    if (ioctl(master.get(), TIOCSPTLCK, &unlock) < 0) return launch_failure("pty", errno);
    unique_fd slave(ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!slave) {
      // Before Linux 4.13: by name.
      char name[64];
      if (ptsname_r(master.get(), name, sizeof name) != 0) return launch_failure("pty", errno);
      slave.reset(open(name, O_RDWR | O_NOCTTY | O_CLOEXEC));
      if (!slave) return launch_failure("pty", errno);
    }
    set_terminal_modes(slave.get());
    if (const auto e = resize_terminal(master.get(), (*o.pty)[0], (*o.pty)[1])) return launch_failure("pty", e.value());

    const exec_inputs inputs(r, context);
    clone_child_args a{};
    inputs.fill(a);
    for (int fd = 0; fd < 3; ++fd) a.stdio[fd] = slave.get();
    a.new_session = true;
    a.controlling_terminal = slave.get();
    a.die_with_helper = true;  // killed with the helper, as every non-detached child
    launched_process child = clone_and_exec(a, true);
    slave.reset();  // the child's copies are its own now: its exit hangs the terminal up
    if (child.error) return child;
    out.pid = child.pid;
    out.exit_handle = std::move(child.exit_handle);
    out.create_us = child.create_us;
    // The child's parent-death signal follows this thread: it must not retire while the
    // child lives (launch_pool.hpp).
    out.launch_thread = launch_pool::pin_current_thread();
    if (!node_holds_master) {
      // The relay writes to and reads from the same master, through two descriptors.
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
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

}  // namespace spawnhost
