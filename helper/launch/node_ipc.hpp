// Node's own IPC channel to the helper: the "ipc" stdio entry Node started us with
// (JSON serialization), on descriptor --ipc-fd. Node can receive a descriptor only on
// such a channel, one per read (the kernel ends a read at a message that carries
// descriptors). A launch's stdio descriptors go one per sendmsg, as SCM_RIGHTS: each
// but the last with a single space, the last with the line that names them all,
//   {"cmd":"NODE_SPAWNHOST_STDIO","id":I,"pid":P,"fds":[0,1,2]}\n
// in the order they were sent (the spaces are whitespace before the line's JSON, so
// Node's channel parses one message a launch). That is not Node's handle protocol (NODE_HANDLE,
// which costs Node a conversion and an ACK write per descriptor): spawnhost's JS takes
// the descriptor from the channel's read itself (helper/handles.js), and Node's channel
// code sees only an internal message. No answer comes: our copy closes as soon as the
// sendmsg carrying it succeeded (the kernel holds it in flight for Node). A descriptor
// Node's end could not take (it is out of descriptors) is reported there, in JS.
// A launch whose stderr became readable before its stdout gets one more line, after
// its descriptors: {"cmd":"NODE_SPAWNHOST_FIRST","id":I,"pid":P,"fd":2}\n, so that Node
// starts reading stderr first (helper/posix/first_output.hpp keeps copies of both
// outputs' ends until the first is readable or the child is reaped).
//
// The other way (Node's `helper.send(msg, handle)`), NODE_HANDLE lines with a
// descriptor are acknowledged and given to the handler; a NODE_SPAWNHOST_GIVE line with
// a descriptor (spawnhost's JS writing straight to the channel) is given to it without
// an ACK. Anything else on the channel
// is reported to the handler as an error and skipped; it never ends the helper.
//
// One implementation per platform family: helper/posix/node_ipc.cpp; the Windows
// helper has none (its stub refuses --ipc-fd).
#pragma once
#include <asio/io_context.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "os_handle.hpp"

namespace spawnhost {

class node_ipc {
 public:
  struct handler {
    // A hand-over that could not be sent (the channel failed or closed): the launch
    // `id` cannot have its stdio.
    virtual void hand_over_failed(std::uint64_t id, const std::string& why) = 0;
    // A NODE_HANDLE from Node, acknowledged; `message` is its `msg` as JSON text.
    virtual void received(const std::string& message, os_handle handle) = 0;
    // A line that is not Node's handle protocol, a NODE_HANDLE without descriptor: said
    // once per line, the channel goes on.
    virtual void channel_error(const std::string& why) = 0;
    virtual ~handler() = default;
  };
  static constexpr std::size_t max_line = 64 * 1024;  // longer lines are garbage

  // Takes ownership of `fd`.
  node_ipc(asio::io_context& io, int fd, handler& h);
  ~node_ipc();
  node_ipc(const node_ipc&) = delete;
  node_ipc& operator=(const node_ipc&) = delete;

  void start();  // read Node's answers and handles
  // Hands our ends of launch `id`'s stdio (by fd: 0, 1, 2; empty ones are not piped)
  // to Node; `pid` tells the launch apart from a later one that reuses the id.
  void hand_over(std::uint64_t id, std::uint64_t pid, std::array<os_handle, 3> stdio);
  // Launch id's child was reaped: what watched its outputs' order is closed.
  void child_exited(std::uint64_t id);
  // Hand-overs queued whose descriptor has not gone out yet (the channel is full).
  std::size_t outstanding() const noexcept;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace spawnhost
