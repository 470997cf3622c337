// helper/channel_listener on a path (the macOS helper's kind, and Linux's with
// SPAWNHOST_HELPER_POSIX_SPAWN=1): a connection from the expected pid is accepted and
// blocking, one from another pid is not, and removing the listener removes the socket
// file and its directory.
#include "launch/channel_listener.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace spawnhost {
namespace {

int connect_to(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.data(), path.size());
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(ChannelListener, APathTakesItsOwnProcessOnlyAndGoesAwayWithTheListener) {
  char dir[] = "/tmp/spawnhost-listener-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/channel";
  channel_listener listener;
  ASSERT_TRUE(listen_channel(path, listener)) << std::strerror(errno);
  EXPECT_EQ(listener.padded, -1) << "a path needs one socket";

  const int ours = connect_to(path);
  ASSERT_GE(ours, 0);
  std::string why;
  const int accepted = accept_channel(listener, static_cast<int>(::getpid()), why);
  ASSERT_GE(accepted, 0) << why;
  EXPECT_EQ(::fcntl(accepted, F_GETFL) & O_NONBLOCK, 0) << "the child's channel is blocking, as child_process's";
  EXPECT_NE(::fcntl(accepted, F_GETFD) & FD_CLOEXEC, 0);
  close_channel(accepted);
  ::close(ours);

  const int other = connect_to(path);
  ASSERT_GE(other, 0);
  EXPECT_LT(accept_channel(listener, static_cast<int>(::getpid()) + 1, why), 0) << "a connection of another pid was taken";
  ::close(other);

  remove_channel_listener(listener);
  struct stat st{};
  EXPECT_NE(::stat(path.c_str(), &st), 0) << "the socket file stayed";
  EXPECT_NE(::stat(dir, &st), 0) << "its directory stayed";
}

}  // namespace
}  // namespace spawnhost
