// Node's own IPC channel to the helper: the "ipc" stdio entry Node started us with
// (JSON serialization), on descriptor --ipc-fd. Node can receive a descriptor only on
// such a channel, and it already speaks a handle protocol there, so the helper uses it
// as it is: each descriptor goes with ONE sendmsg carrying the line
//   {"cmd":"NODE_HANDLE","type":"net.Native","msg":{"cmd":"NODE_SPAWNHOST_STDIO","id":I,"pid":P,"fd":F}}\n
// and the descriptor as SCM_RIGHTS. Node answers {"cmd":"NODE_HANDLE_ACK"} (then emits
// the handle with `msg` on the helper's ChildProcess) or NODE_HANDLE_NACK (it could
// not take the descriptor), on which the hand-over is sent again, as Node's own sender
// does, up to max_retransmissions times. The helper keeps its copy of each descriptor
// until its answer came (a FIFO: Node answers in order), then closes it.
//
// The other way (Node's `helper.send(msg, handle)`), NODE_HANDLE lines with a
// descriptor are acknowledged and given to the handler. Anything else on the channel
// is reported to the handler as an error and skipped; it never ends the helper.
//
// One implementation per platform family: helper/posix/node_ipc.cpp; the Windows
// helper has none (its stub refuses --ipc-fd).
#pragma once
#include <asio/io_context.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "os_handle.hpp"

namespace spawnhost {

class node_ipc {
 public:
  struct handler {
    // A hand-over Node refused max_retransmissions + 1 times, or that could not be
    // sent at all: the launch `id` cannot have its stdio.
    virtual void hand_over_failed(std::uint64_t id, const std::string& why) = 0;
    // A NODE_HANDLE from Node, acknowledged; `message` is its `msg` as JSON text.
    virtual void received(const std::string& message, os_handle handle) = 0;
    // A line that is not Node's handle protocol, a NODE_HANDLE without descriptor, an
    // ACK nobody waited for: said once per line, the channel goes on.
    virtual void channel_error(const std::string& why) = 0;
    virtual ~handler() = default;
  };
  static constexpr int max_retransmissions = 3;
  static constexpr std::size_t max_line = 64 * 1024;  // longer lines are garbage

  // Takes ownership of `fd`.
  node_ipc(asio::io_context& io, int fd, handler& h);
  ~node_ipc();
  node_ipc(const node_ipc&) = delete;
  node_ipc& operator=(const node_ipc&) = delete;

  void start();  // read Node's answers and handles
  // Hands our end of launch `id`'s stdio `fd` (0, 1 or 2) to Node; `pid` tells the
  // launch apart from a later one that reuses the id.
  void hand_over(std::uint64_t id, std::uint64_t pid, std::uint32_t fd, os_handle handle);
  // Hand-overs sent or queued that Node has not acknowledged yet.
  std::size_t outstanding() const noexcept;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace spawnhost
