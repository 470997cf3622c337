// Windows hand-over of a child's stdio to Node (spawn option handover): for each launch
// Node listens on a named pipe of its own, named by the helper's --stream-pipe (a random
// base), a dash and the launch's request id, with one instance per piped stdio, made in
// spawn() before the request is sent (libuv makes the first instance with
// FILE_FLAG_FIRST_PIPE_INSTANCE, so nobody made it before Node). Each piped stdio of the
// child is one connection to it, opened here, without Node's thread having to run. The child gets our client
// end; Node reads and writes the server end it accepted as its own net.Socket, as it
// reads a descriptor handed over on Linux. Before the child can write anything, the
// launch's stream_token (a secret that came on our private stdin) and the fd's digit
// go first on the connection: Node keeps only the connections that start so, and a
// client that connected to its pipe by name without the secret gets nothing
// (js/src/helper/stream-pipes.js).
#pragma once
#include <cstdint>
#include <string>
#include <system_error>

#include "os_handle.hpp"

namespace spawnhost::windows {

// Connects to Node's pipe for launch `launch_id` (`pipe_base`-<id>), writes `token` and the digit of `fd`, and sets
// `theirs` to an inheritable handle for the child with only what that stdio needs:
// reading (fd 0) or writing (1, 2), plus the attributes libuv's child sets or queries.
// Waits while all of the pipe's instances are taken (a foreign client holds one until
// Node's thread closes it).
std::error_code open_node_pipe(const std::string& pipe_base, std::uint64_t launch_id, const std::string& token, int fd,
                               os_handle& theirs);

}  // namespace spawnhost::windows
