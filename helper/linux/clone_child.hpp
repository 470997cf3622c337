// Linux's child creation, shared by the two Linux launchers: process.cpp (every child)
// and pty_linux.cpp (terminal children). Both create the child with
// clone(CLONE_VM | CLONE_VFORK): it borrows the helper's memory until it execs, so
// creation costs the same whatever the helper's size, and it can do what posix_spawn
// cannot (PR_SET_PDEATHSIG, setuid/setgid, TIOCSCTTY).
//
// The child runs on its own small stack and makes raw system calls only: it shares
// memory with a running multi-threaded process. Everything it needs (argv, envp,
// candidate paths) is prepared before the clone, in `exec_inputs`. It reports a failure
// by writing errno into its `clone_child_args` (shared memory), then exits with 127;
// because of CLONE_VFORK the parent reads it only after the child has exec'd or exited.
// Emulators that run vfork as fork (qemu-user) share no memory: the first launch finds
// out, and where it is so, every launch also gets libuv's close-on-exec pipe for the
// report.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "protocol/messages.hpp"
#include "launch/process.hpp"

namespace spawnhost {

// What the child does between clone and exec, in this order: signal dispositions back
// to default; a new session (and its controlling terminal) or Node's process group;
// the parent-death signal; chdir; stdio onto 0-2 and the IPC channel onto 3; ids; an
// empty signal mask; execve along the candidates.
struct clone_child_args {
  const int* reset_signals;  // dispositions the child must set back to default
  std::size_t reset_signal_count;
  char* const* argv;
  char* const* envp;
  const char* const* candidates;  // paths to try with execve, PATH order
  std::size_t candidate_count;
  const char* cwd;
  const char* cwd_fallback;  // tried when cwd no longer exists (spawn option node_cwd)
  int stdio[3];
  int channel = -1;  // -1, or the descriptor to become the child's fd 3
  bool new_session = false;  // setsid: detached children and terminal children
  int controlling_terminal = -1;  // with new_session: the tty the session acquires (TIOCSCTTY)
  // PR_SET_PDEATHSIG: killed with the helper if it dies without ending the child.
  bool die_with_helper = false;
  int process_group = 0;  // > 0: the group to join (Node's, not the helper's)
  pid_t helper_pid;
  long uid = -1, gid = -1;  // -1: leave as is
  // Written by the child:
  bool ran = false;  // first thing: the parent sees it only if the clone really shared memory
  int error = 0;
  const char* stage = nullptr;
  int report_fd = -1;  // -1, or the write end of a close-on-exec pipe: EOF means exec succeeded
};

// The child's argv, envp, PATH candidates and directories, built before the clone (the
// child may not allocate). Fills the matching fields of a clone_child_args, which then
// points into this object: it must outlive the launch, and is neither copied nor moved.
class exec_inputs {
 public:
  exec_inputs(const spawn_request& request, const launch_context& context);
  exec_inputs(const exec_inputs&) = delete;
  exec_inputs& operator=(const exec_inputs&) = delete;
  // argv, envp, candidates, cwd (and its fallback), reset signals, uid/gid, helper pid.
  void fill(clone_child_args& a) const;

 private:
  const spawn_options& options_;
  std::vector<std::string> argv_strings_;
  std::vector<char*> argv_;
  std::vector<char*> envp_;
  std::vector<std::string> candidates_;
  std::vector<const char*> candidate_ptrs_;
  std::string node_cwd_;  // Node's current directory as /proc/<pid>/cwd, or ""
};

// Clones the child `a` describes and waits until it has exec'd or failed. On success:
// pid, create_us and, when `want_pidfd`, a pidfd as exit handle (else the exit watch
// waits on SIGCHLD). On failure: launch_failure with the child's stage and errno, the
// child already collected. Throws std::bad_alloc only.
launched_process clone_and_exec(clone_child_args& a, bool want_pidfd);

// Whether this kernel has pidfds, probed once. SPAWNHOST_HELPER_NO_PIDFD=1 says no, to
// test on kernels that have them what runs on those that do not.
bool pidfd_supported() noexcept;

}  // namespace spawnhost
