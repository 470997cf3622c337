// See channel_listener.hpp.
#include "launch/channel_listener.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

namespace spawnhost {

namespace {
int listen_on(const sockaddr_un& address, socklen_t length) noexcept {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  // Set apart from socket(): macOS has neither SOCK_CLOEXEC nor SOCK_NONBLOCK.
  if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
      bind(fd, reinterpret_cast<const sockaddr*>(&address), length) < 0 || listen(fd, 128) < 0) {
    const int e = errno;
    close(fd);
    return errno = e, -1;
  }
  return fd;
}

// The pid of the process at the other end of an accepted connection; -1 if unknown.
long peer_pid(int fd) noexcept {
#if defined(__linux__)
  ucred peer{};
  socklen_t size = sizeof peer;
  return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 ? peer.pid : -1;
#elif defined(LOCAL_PEERPID)
  pid_t pid = 0;
  socklen_t size = sizeof pid;
  return getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &size) == 0 ? pid : -1;
#else
  (void)fd;
  return -1;
#endif
}
}  // namespace

bool listen_channel(const std::string& name, channel_listener& out) noexcept {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (name.empty() || name.size() + 1 > sizeof address.sun_path) return errno = EINVAL, false;
  if (name[0] == '/') {
    // A path: Node made its directory (mode 0700), nothing else is in it.
    std::memcpy(address.sun_path, name.data(), name.size());
    out.exact = listen_on(address, static_cast<socklen_t>(sizeof address));
    if (out.exact < 0) return false;
    out.path = name;
    return true;
  }
#ifdef __linux__
  std::memcpy(address.sun_path + 1, name.data(), name.size());  // sun_path[0] = 0: abstract
  // Node 22 and later connect to the name as given; Node 20 to the whole sun_path, the
  // name padded with zeros: a different abstract name, so both are listened on.
  out.exact = listen_on(address, static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size()));
  if (out.exact < 0) return false;
  out.padded = listen_on(address, static_cast<socklen_t>(sizeof address));
  if (out.padded < 0) {
    const int e = errno;
    close(std::exchange(out.exact, -1));
    return errno = e, false;
  }
  return true;
#else
  return errno = ENOTSUP, false;  // abstract sockets are Linux's
#endif
}

int accept_channel(const channel_listener& listener, int node_pid, std::string& why) noexcept {
  // Node connected before it wrote the request, so the connection is queued; the wait
  // only covers a connection that is not (a bug): never the normal path.
  for (int attempts = 0; attempts < 64; ++attempts) {
    pollfd p[2] = {{listener.exact, POLLIN, 0}, {listener.padded, POLLIN, 0}};  // poll skips -1
    if (poll(p, 2, 2000) <= 0) return why = "no connection from Node", -1;
    const int ready = (p[0].revents & POLLIN) ? listener.exact : listener.padded;
    const int fd = accept(ready, nullptr, nullptr);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED) continue;
      return why = std::string("accept: ") + std::strerror(errno), -1;
    }
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    // An accepted socket is blocking on Linux but inherits O_NONBLOCK on macOS: the
    // child gets it blocking, as child_process's children get their channel.
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (node_pid == 0 || peer_pid(fd) == node_pid) return fd;
    close(fd);  // not Node's: another process found the name
  }
  return why = "no connection from Node", -1;
}

void close_channel(int fd) noexcept {
  if (fd >= 0) close(fd);
}

void remove_channel_listener(channel_listener& listener) noexcept {
  close_channel(std::exchange(listener.exact, -1));
  close_channel(std::exchange(listener.padded, -1));
  if (listener.path.empty()) return;
  unlink(listener.path.c_str());
  const auto slash = listener.path.rfind('/');
  if (slash != std::string::npos && slash > 0) rmdir(listener.path.substr(0, slash).c_str());
  listener.path.clear();
}

}  // namespace spawnhost
