// The messages Node sends (decoded into typed requests) and the ones the helper sends
// (encoded straight into frames). Shapes and codes come from schema/protocol.json via
// protocol_generated.hpp; see schema/README.md for what each one means.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/decode_error.hpp"
#include "protocol/protocol_generated.hpp"

namespace spawnhost {

struct spawn_options {
  std::optional<std::string> cwd;
  bool node_cwd = false;  // cwd names Node's current directory: fall back to where Node is, if deleted
  std::optional<std::vector<std::string>> env;  // absent: the helper's environment
  std::optional<std::string> argv0;
  std::array<protocol::stdio_kind, 3> stdio{protocol::stdio_kind::pipe, protocol::stdio_kind::pipe,
                                            protocol::stdio_kind::pipe};
  // stdio kind given: the token of the descriptor Node sent for each fd (0: none), and
  // that descriptor once it has arrived (not a protocol field; the session owns it).
  std::array<std::uint64_t, 3> given{0, 0, 0};
  std::array<int, 3> given_fds{-1, -1, -1};
  bool detached = false;
  std::uint64_t timeout_ms = 0;        // 0: none
  std::string kill_signal = "SIGTERM";
  std::optional<std::uint64_t> max_buffer;  // absent: no cap; 0: no output allowed
  std::optional<std::uint64_t> max_output;  // stdout and stderr together (blocking calls); absent: no cap
  std::optional<std::uint64_t> credit;  // absent: unlimited, no credit round trips
  // Present: one `result` frame instead of spawned/eof/exit, holding up to this many
  // bytes of each output (capped at max_data_chunk).
  std::optional<std::uint64_t> result;
  bool ipc = false;  // a socketpair as the child's fd 3 (Node's NODE_CHANNEL_FD)
  bool handover = false;  // piped stdio go to Node over the helper's IPC channel (node_ipc.hpp)
  std::string stream_token;  // Windows hand-over: written first on each stdio connection to Node (windows/node_pipes.cpp)
  bool ipc_connected = false;  // with ipc: fd 3 is the connection Node made to our listener
  int connected_channel = -1;  // that connection, accepted (not a protocol field; the launch owns it)
  std::optional<std::uint32_t> uid;
  std::optional<std::uint32_t> gid;
  bool windows_hide = false;                // Windows only, as in child_process
  bool windows_verbatim_arguments = false;  // Windows only: no quoting of the command line
  std::optional<std::array<std::uint16_t, 2>> pty;  // [cols, rows]: a terminal child (pty/terminal.hpp)
};

struct spawn_request {
  std::uint64_t id;
  std::string file;
  std::vector<std::string> args;
  spawn_options options;
};
// `bytes` of write and send point into the frame: valid while it is dispatched.
struct write_request { std::uint64_t id; std::string_view bytes; };
struct end_request { std::uint64_t id; };
struct kill_request { std::uint64_t id; std::string signal; };
struct credit_request { std::uint64_t id; std::uint32_t fd; std::uint64_t bytes; };
struct shutdown_request { std::uint64_t grace_ms; };
struct remove_tree_request { std::uint64_t id; std::string path; };
struct close_output_request { std::uint64_t id; std::uint32_t fd; };
// quiet (send_quiet): the acknowledgement may be held back and merged into a later one.
struct send_request { std::uint64_t id; std::string_view bytes; bool quiet = false; };
struct ping_request { std::uint64_t token; };
// Sync channel: answer spawn_known once the main channel's launch `id` has a result.
struct await_spawn_request { std::uint64_t id; };
// A terminal child's new window size (pty/terminal.hpp).
struct resize_request { std::uint64_t id; std::uint16_t cols; std::uint16_t rows; };

using request = std::variant<spawn_request, write_request, end_request, kill_request, credit_request,
                             shutdown_request, remove_tree_request, close_output_request, send_request, ping_request,
                             await_spawn_request, resize_request>;

struct decoded_request {
  decode_error error = decode_error::none;
  std::string detail;             // what was wrong, for the error message
  std::optional<std::uint64_t> id;  // the request id, when it could be read
  request value;
};

// Decodes one frame body. Never throws; bad input yields error != none.
decoded_request decode_request(std::string_view body) noexcept;

// Encoders: each returns a complete frame (length prefix included).
namespace encode {
std::string hello(std::string_view version, std::uint64_t pid);
std::string spawned(std::uint64_t id, std::uint64_t pid, std::uint64_t create_us, std::uint64_t queued_us);
std::string spawn_error(std::uint64_t id, std::string_view code, std::string_view stage);
std::string data(std::uint64_t id, std::uint32_t fd, const char* bytes, std::size_t size);
// The longest head of a data frame: length prefix, array, code, uint64 id, fd, bin32 header.
inline constexpr std::size_t max_data_head = 4 + 1 + 1 + 9 + 1 + 5;
// Writes the head of a data frame carrying the `size` bytes at `payload`, so that the
// head ends where the payload begins (max_data_head bytes before it must be ours), and
// returns where the frame starts. The frame is byte for byte what data() would build:
// the payload was read into place and is never copied.
char* data_head_before(char* payload, std::uint64_t id, std::uint32_t fd, std::size_t size);
std::string eof(std::uint64_t id, std::uint32_t fd);
std::string exit(std::uint64_t id, std::optional<std::int64_t> status, std::optional<std::string_view> signal,
                 std::uint32_t flags);
std::string written(std::uint64_t id, std::uint64_t bytes);
std::string stdin_error(std::uint64_t id, std::string_view code);
std::string error(std::optional<std::uint64_t> id, bool fatal, std::string_view message);
std::string removed(std::uint64_t id, std::optional<std::string_view> code, std::optional<std::string_view> syscall);
std::string sent(std::uint64_t id, std::uint64_t bytes);
std::string send_error(std::uint64_t id, std::string_view code);
std::string pong(std::uint64_t token);
std::string spawn_known(std::uint64_t id, std::optional<std::uint64_t> pid, std::optional<std::string_view> code);
std::string result(std::uint64_t id, std::optional<std::int64_t> status, std::optional<std::string_view> signal,
                   std::uint32_t flags, std::string_view out, std::string_view err, std::uint64_t pid,
                   std::uint64_t create_us, std::uint64_t queued_us);
}  // namespace encode

}  // namespace spawnhost
