// Node's side of its IPC channel to the helper, for the C++ tests (POSIX): what Node's
// channel code writes for `send(message, handle)`, one line with its descriptor as
// SCM_RIGHTS. Built here on its own, not with the helper's code, so that a test does
// not agree with the helper only because both are wrong the same way.
#pragma once
#include <sys/socket.h>

#include <cstring>
#include <string>

namespace spawnhost::test {

inline ssize_t send_line_with_fd(int channel, const std::string& line, int fd) {
  iovec iov{const_cast<char*>(line.data()), line.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(channel, &msg, 0);
}

}  // namespace spawnhost::test
