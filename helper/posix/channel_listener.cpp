// See channel_listener.hpp.
#include "channel_listener.hpp"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <utility>

namespace spawnhost {

namespace {
#ifdef __linux__
int listen_on(const sockaddr_un& address, socklen_t length) noexcept {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), length) < 0 || listen(fd, 128) < 0) {
    const int e = errno;
    close(fd);
    return errno = e, -1;
  }
  return fd;
}
#endif
}  // namespace

bool listen_channel(const std::string& name, channel_listener& out) noexcept {
#ifdef __linux__
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (name.empty() || name.size() + 1 > sizeof address.sun_path) return errno = EINVAL, false;
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
  (void)name;
  (void)out;
  return errno = ENOTSUP, false;
#endif
}

int accept_channel(const channel_listener& listener, int node_pid, std::string& why) noexcept {
#ifdef __linux__
  // Node connected before it wrote the request, so the connection is queued; the wait
  // only covers a connection that is not (a bug): never the normal path.
  for (int attempts = 0; attempts < 64; ++attempts) {
    pollfd p[2] = {{listener.exact, POLLIN, 0}, {listener.padded, POLLIN, 0}};
    if (poll(p, 2, 2000) <= 0) return why = "no connection from Node", -1;
    const int ready = (p[0].revents & POLLIN) ? listener.exact : listener.padded;
    const int fd = accept4(ready, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED) continue;
      return why = std::string("accept: ") + std::strerror(errno), -1;
    }
    ucred peer{};
    socklen_t size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 && (node_pid == 0 || peer.pid == node_pid)) return fd;
    close(fd);  // not Node's: another process found the name
  }
  return why = "no connection from Node", -1;
#else
  (void)listener;
  (void)node_pid;
  return why = "not supported here", -1;
#endif
}

void close_channel(int fd) noexcept {
  if (fd >= 0) close(fd);
}

}  // namespace spawnhost
