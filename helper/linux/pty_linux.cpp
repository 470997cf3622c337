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

#include "linux/clone_child.hpp"
#include "posix/launch_common.hpp"
#include "launch/launch_pool.hpp"
#include "posix/launch_posix_spawn.hpp"
#include "posix/pty_common.hpp"
#include "pty/terminal.hpp"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

namespace spawnhost {

launched_process launch_terminal(const spawn_request& r, const launch_context& context) noexcept {
  const auto& o = r.options;
  bool node_holds_master = false;
  if (const int e = check_terminal_request(o, node_holds_master)) return launch_failure("pty", e);
  // SPAWNHOST_HELPER_POSIX_SPAWN=1: the macOS helper's terminal launcher, tested here;
  // uid/gid stay on this path, as with launch_process.
  if (posix_spawn_launcher_chosen() && !o.uid && !o.gid) return launch_terminal_with_posix_spawn(r, context);
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
    return hand_on_master(std::move(out), std::move(master), node_holds_master);
  } catch (const std::bad_alloc&) {
    return launch_failure("memory", ENOMEM);
  }
}

}  // namespace spawnhost
