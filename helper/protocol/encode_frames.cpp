// Encoding of the messages the helper sends (messages.hpp): each one a whole frame,
// its length prefix included, packed in place with no copy of the message afterwards.
#include <array>
#include <cstring>

#include <msgpack.hpp>

#include "protocol/messages.hpp"

namespace spawnhost {
namespace {

using protocol::msg;

// msgpack::packer wants a sink with write(); frames are built in place, the length
// prefix patched in at the end.
struct frame_sink {
  std::string bytes = std::string(4, '\0');
  void write(const char* p, std::size_t n) { bytes.append(p, n); }
  std::string finish() {
    const auto n = static_cast<std::uint32_t>(bytes.size() - 4);
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return std::move(bytes);
  }
};

class frame_builder {
 public:
  frame_builder(msg code, std::size_t size) : pk_(sink_) {
    pk_.pack_array(static_cast<std::uint32_t>(size));
    pk_.pack_uint8(static_cast<std::uint8_t>(code));
  }
  frame_builder& u(std::uint64_t v) { pk_.pack_uint64(v); return *this; }
  frame_builder& i(std::int64_t v) { pk_.pack_int64(v); return *this; }
  frame_builder& b(bool v) { v ? pk_.pack_true() : pk_.pack_false(); return *this; }
  frame_builder& s(std::string_view v) {
    pk_.pack_str(static_cast<std::uint32_t>(v.size()));
    pk_.pack_str_body(v.data(), static_cast<std::uint32_t>(v.size()));
    return *this;
  }
  frame_builder& s(std::optional<std::string_view> v) { return v ? s(*v) : nil(); }
  frame_builder& bin(const char* p, std::size_t n) {
    pk_.pack_bin(static_cast<std::uint32_t>(n));
    pk_.pack_bin_body(p, static_cast<std::uint32_t>(n));
    return *this;
  }
  frame_builder& nil() { pk_.pack_nil(); return *this; }
  std::string finish() { return sink_.finish(); }

 private:
  frame_sink sink_;
  msgpack::packer<frame_sink> pk_;
};

}  // namespace

namespace encode {
using protocol::msg;
std::string hello(std::string_view version, std::uint64_t pid) {
  return frame_builder(msg::hello, protocol::hello_size).u(protocol::version).s(version).u(pid).finish();
}
std::string spawned(std::uint64_t id, std::uint64_t pid, std::uint64_t create_us, std::uint64_t queued_us) {
  return frame_builder(msg::spawned, protocol::spawned_size).u(id).u(pid).u(create_us).u(queued_us).finish();
}
std::string spawn_error(std::uint64_t id, std::string_view code, std::string_view stage) {
  return frame_builder(msg::spawn_error, protocol::spawn_error_size).u(id).s(code).s(stage).finish();
}
std::string data(std::uint64_t id, std::uint32_t fd, const char* bytes, std::size_t size) {
  return frame_builder(msg::data, protocol::data_size).u(id).u(fd).bin(bytes, size).finish();
}
char* data_head_before(char* payload, std::uint64_t id, std::uint32_t fd, std::size_t size) {
  struct head_sink {  // the head is built on the stack: no allocation per frame
    std::array<char, max_data_head> bytes{};
    std::size_t size = 4;
    void write(const char* p, std::size_t n) {
      std::memcpy(bytes.data() + size, p, n);
      size += n;
    }
  } head;
  msgpack::packer<head_sink> pk(head);
  pk.pack_array(protocol::data_size);
  pk.pack_uint8(static_cast<std::uint8_t>(msg::data));
  pk.pack_uint64(id);
  pk.pack_uint64(fd);
  pk.pack_bin(static_cast<std::uint32_t>(size));
  const auto body = static_cast<std::uint32_t>(head.size - 4 + size);
  for (int i = 0; i < 4; ++i) head.bytes[i] = static_cast<char>((body >> (8 * i)) & 0xff);
  char* start = payload - head.size;
  std::memcpy(start, head.bytes.data(), head.size);
  return start;
}
std::string eof(std::uint64_t id, std::uint32_t fd) {
  return frame_builder(msg::eof, protocol::eof_size).u(id).u(fd).finish();
}
std::string exit(std::uint64_t id, std::optional<std::int64_t> status, std::optional<std::string_view> signal,
                 std::uint32_t flags) {
  frame_builder f(msg::exit, protocol::exit_size);
  f.u(id);
  status ? f.i(*status) : f.nil();
  return f.s(signal).u(flags).finish();
}
std::string written(std::uint64_t id, std::uint64_t bytes) {
  return frame_builder(msg::written, protocol::written_size).u(id).u(bytes).finish();
}
std::string stdin_error(std::uint64_t id, std::string_view code) {
  return frame_builder(msg::stdin_error, protocol::stdin_error_size).u(id).s(code).finish();
}
std::string error(std::optional<std::uint64_t> id, bool fatal, std::string_view message) {
  frame_builder f(msg::error, protocol::error_size);
  id ? f.u(*id) : f.nil();
  return f.b(fatal).s(message).finish();
}
std::string removed(std::uint64_t id, std::optional<std::string_view> code, std::optional<std::string_view> syscall) {
  return frame_builder(msg::removed, protocol::removed_size).u(id).s(code).s(syscall).finish();
}
std::string sent(std::uint64_t id, std::uint64_t bytes) {
  return frame_builder(msg::sent, protocol::sent_size).u(id).u(bytes).finish();
}
std::string send_error(std::uint64_t id, std::string_view code) {
  return frame_builder(msg::send_error, protocol::send_error_size).u(id).s(code).finish();
}
std::string pong(std::uint64_t token) { return frame_builder(msg::pong, protocol::pong_size).u(token).finish(); }

std::string spawn_known(std::uint64_t id, std::optional<std::uint64_t> pid, std::optional<std::string_view> code) {
  frame_builder f(msg::spawn_known, protocol::spawn_known_size);
  f.u(id);
  if (pid) f.u(*pid);
  else f.nil();
  return f.s(code).finish();
}
std::string result(std::uint64_t id, std::optional<std::int64_t> status, std::optional<std::string_view> signal,
                   std::uint32_t flags, std::string_view out, std::string_view err, std::uint64_t pid,
                   std::uint64_t create_us, std::uint64_t queued_us) {
  frame_builder f(msg::result, protocol::result_size);
  f.u(id);
  status ? f.i(*status) : f.nil();
  f.s(signal).u(flags).bin(out.data(), out.size()).bin(err.data(), err.size());
  return f.u(pid).u(create_us).u(queued_us).finish();
}
}  // namespace encode

}  // namespace spawnhost
