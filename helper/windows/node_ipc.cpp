// Windows: no descriptors over Node's IPC (its pipes there speak libuv's Windows
// framing, and carry sockets only). The hand-over goes the other way round: the
// children's stdio connect to a pipe of Node's (--stream-pipe, windows/node_pipes.hpp),
// so no launch gives this anything. Node never starts it with --ipc-fd; this only
// keeps the seam whole.
#include "launch/node_ipc.hpp"

namespace spawnhost {

struct node_ipc::impl {
  handler& handler_;
};

node_ipc::node_ipc(asio::io_context&, int, handler& h) : impl_(std::make_shared<impl>(impl{h})) {}
node_ipc::~node_ipc() = default;
void node_ipc::start() {}
void node_ipc::hand_over(std::uint64_t id, std::uint64_t, std::array<os_handle, 3>) {
  impl_->handler_.hand_over_failed(id, "the Windows helper cannot hand descriptors to Node");
}
void node_ipc::child_exited(std::uint64_t) {}
std::size_t node_ipc::outstanding() const noexcept { return 0; }

}  // namespace spawnhost
