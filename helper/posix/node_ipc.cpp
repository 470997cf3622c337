// POSIX: Node's IPC channel to the helper (see node_ipc.hpp). sendmsg/recvmsg with
// SCM_RIGHTS work the same on Linux and macOS; only MSG_CMSG_CLOEXEC is Linux's.
#include "launch/node_ipc.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <asio/posix/stream_descriptor.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <string_view>
#include <system_error>
#include <utility>

#include "posix/first_output.hpp"

namespace spawnhost {

struct node_ipc::impl : std::enable_shared_from_this<impl> {
  // One line to write, with the descriptor it carries (or none). The descriptor stays
  // ours until the sendmsg that carries it has succeeded: the kernel then holds it in
  // flight for Node (and closes it if Node's end closes unread).
  struct out_line {
    std::string line;
    os_handle handle;
    std::uint64_t id = 0;  // the launch whose stdio `handle` is
  };

  impl(asio::io_context& io, int fd, handler& h)
      : socket(io, fd), handler_(h), first(io, [this](std::uint64_t id, std::uint64_t pid) { stderr_first(id, pid); }) {}

  asio::posix::stream_descriptor socket;
  handler& handler_;
  first_output first;  // which of a launch's outputs became readable first
  std::deque<out_line> to_write;
  bool writing = false;
  std::string input;
  bool closed = false;

  void queue(out_line l) {
    to_write.push_back(std::move(l));
    if (!writing) write_some();
  }

  // Writes queued lines until the socket would block, then waits for room. A line goes
  // whole in one sendmsg or not at all (they are short; a partial one is finished with
  // plain sends, its descriptor already went with its first byte).
  std::size_t partial = 0;
  void write_some() {
    writing = true;
    while (!to_write.empty() && !closed) {
      out_line& l = to_write.front();
      const char* data = l.line.data() + partial;
      const std::size_t size = l.line.size() - partial;
      ssize_t n;
      if (partial == 0 && l.handle) {
        iovec iov{const_cast<char*>(data), size};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
        std::memset(control, 0, sizeof control);
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        const int fd = l.handle.get();
        std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
        do n = ::sendmsg(socket.native_handle(), &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n > 0) l.handle = os_handle();  // in flight: Node's now, our copy closes
      } else {
        do n = ::send(socket.native_handle(), data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        socket.async_wait(asio::posix::stream_descriptor::wait_write, [self = shared_from_this()](std::error_code ec) {
          if (ec) return;
          self->write_some();
        });
        return;
      }
      if (n < 0) return fail_all(std::string("writing Node's IPC channel failed: ") + std::strerror(errno));
      partial += static_cast<std::size_t>(n);
      if (partial < l.line.size()) continue;
      partial = 0;
      to_write.pop_front();
    }
    writing = false;
  }

  // After the launch's descriptors (the queue keeps the order): Node reads it in the
  // same turn as them when its thread was busy, and starts reading stderr first.
  void stderr_first(std::uint64_t id, std::uint64_t pid) {
    if (closed) return;
    queue({R"({"cmd":"NODE_SPAWNHOST_FIRST","id":)" + std::to_string(id) + R"(,"pid":)" + std::to_string(pid) + R"(,"fd":2})" "\n", {}, id});
  }

  // The channel is unusable: every hand-over not sent yet fails, later ones too.
  void fail_all(const std::string& why) {
    closed = true;
    writing = false;
    std::uint64_t reported = 0;  // a launch's descriptors are queued together: one report each
    for (auto& l : std::exchange(to_write, {})) {
      if (l.handle && l.id != reported) handler_.hand_over_failed(reported = l.id, why);
    }
    std::error_code ignored;
    socket.close(ignored);
  }

  void read_some() {
    if (closed) return;
    socket.async_wait(asio::posix::stream_descriptor::wait_read, [self = shared_from_this()](std::error_code ec) {
      if (ec) return;
      self->read_now();
    });
  }

  void read_now() {
    for (;;) {
      char buffer[4096];
      iovec iov{buffer, sizeof buffer};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      int flags = MSG_DONTWAIT;
#ifdef MSG_CMSG_CLOEXEC
      flags |= MSG_CMSG_CLOEXEC;  // no child may inherit a descriptor of Node's by accident
#endif
      ssize_t n;
      do n = ::recvmsg(socket.native_handle(), &msg, flags);
      while (n < 0 && errno == EINTR);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return read_some();
      if (n <= 0) {
        // Node closed the channel (it is ending, or disconnected us): stdin's end
        // decides the helper's fate, this only stops the hand-overs.
        return fail_all(n == 0 ? "Node closed the IPC channel" : std::string("reading Node's IPC channel failed: ") + std::strerror(errno));
      }
      os_handle received;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t k = 0; k < count; ++k) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
          ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // macOS has no MSG_CMSG_CLOEXEC
          if (!received) received = os_handle(fd);
          else ::close(fd);  // Node sends one per message; more is not its protocol
        }
      }
      if (msg.msg_flags & MSG_CTRUNC) handler_.channel_error("a descriptor from Node was truncated (MSG_CTRUNC)");
      input.append(buffer, static_cast<std::size_t>(n));
      // The descriptor belongs to the NODE_HANDLE line of this read (Node's rule: the
      // kernel does not coalesce messages that carry descriptors).
      std::size_t start = 0;
      for (std::size_t nl; (nl = input.find('\n', start)) != std::string::npos; start = nl + 1) {
        on_line(std::string_view(input).substr(start, nl - start), received);
      }
      input.erase(0, start);
      if (received) handler_.channel_error("a descriptor from Node came without a NODE_HANDLE line; closed");
      if (input.size() > max_line) {
        handler_.channel_error("a line from Node longer than 64 KiB; skipped");
        input.clear();
      }
    }
  }

  void on_line(std::string_view line, os_handle& received) {
    // spawnhost's own give (js/src/helper/give-now.js): the message a NODE_HANDLE would
    // carry as its `msg`, written by spawnhost's JS straight to the channel, outside
    // Node's handle protocol, which holds every later handle until Node has read our
    // ACK: a thread blocked on a terminal's pid could not send it. No ACK for it.
    constexpr std::string_view give_prefix = R"({"cmd":"NODE_SPAWNHOST_GIVE",)";
    if (received && line.substr(0, give_prefix.size()) == give_prefix) return handler_.received(std::string(line), std::move(received));
    constexpr std::string_view handle_prefix = R"({"cmd":"NODE_HANDLE",)";
    if (line.substr(0, handle_prefix.size()) == handle_prefix) {
      if (!received) {
        queue({R"({"cmd":"NODE_HANDLE_NACK"})" "\n", {}, 0});
        return handler_.channel_error("a NODE_HANDLE from Node without its descriptor; answered NACK");
      }
      queue({R"({"cmd":"NODE_HANDLE_ACK"})" "\n", {}, 0});
      const auto at = line.find(R"("msg":)");
      std::string message = at == std::string_view::npos ? std::string("null") : std::string(line.substr(at + 6));
      if (!message.empty() && message.back() == '}') message.pop_back();  // the line's own brace
      return handler_.received(message, std::move(received));
    }
    handler_.channel_error("not Node's handle protocol on the IPC channel: " + std::string(line.substr(0, 200)));
  }
};

node_ipc::node_ipc(asio::io_context& io, int fd, handler& h) : impl_(std::make_shared<impl>(io, fd, h)) {
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  // Node set these for our channel, before any launch thread exists: children that get
  // the helper's own environment must not think they have a channel.
  ::unsetenv("NODE_CHANNEL_FD");
  ::unsetenv("NODE_CHANNEL_SERIALIZATION_MODE");
}

node_ipc::~node_ipc() {
  impl_->closed = true;
  std::error_code ignored;
  impl_->socket.close(ignored);
}

void node_ipc::start() { impl_->read_some(); }

void node_ipc::hand_over(std::uint64_t id, std::uint64_t pid, std::array<os_handle, 3> stdio) {
  if (impl_->closed) return impl_->handler_.hand_over_failed(id, "Node's IPC channel is closed");
  std::string line = R"({"cmd":"NODE_SPAWNHOST_STDIO","id":)" + std::to_string(id) + R"(,"pid":)" + std::to_string(pid) + R"(,"fds":[)";
  int last = -1;
  for (int fd = 0; fd < 3; ++fd) {
    if (!stdio[fd]) continue;
    if (last >= 0) line += ',';
    line += static_cast<char>('0' + fd);
    last = fd;
  }
  line += "]}\n";
  // Which output the child makes readable first is seen here, as it happens.
  if (stdio[1] && stdio[2]) impl_->first.watch(id, pid, stdio[1].get(), stdio[2].get());
  for (int fd = 0; fd < 3; ++fd) {
    if (!stdio[fd]) continue;
    // libuv takes a received descriptor as it is, and expects its own ends non-blocking
    // (uv_socketpair makes them so): a blocking one would stall Node's thread in write().
    if (const int flags = ::fcntl(stdio[fd].get(), F_GETFL); flags >= 0) ::fcntl(stdio[fd].get(), F_SETFL, flags | O_NONBLOCK);
    impl_->queue({fd == last ? line : std::string(" "), std::move(stdio[fd]), id});
  }
}

void node_ipc::child_exited(std::uint64_t id) { impl_->first.forget(id); }

std::size_t node_ipc::outstanding() const noexcept {
  std::size_t n = 0;
  for (const auto& l : impl_->to_write) n += l.handle ? 1 : 0;
  return n;
}

}  // namespace spawnhost
