// Decoding of the messages Node sends (messages.hpp). Strict on purpose: a field of the
// wrong type, an unknown option or an extra element is an error, never guessed at, so a
// newer peer is never half-understood.
#include <limits>

#include <msgpack.hpp>

#include "protocol/messages.hpp"

namespace spawnhost {
namespace {

using protocol::msg;

struct failure {
  decode_error error;
  std::string detail;
};

bool as_uint(const msgpack::object& o, std::uint64_t& out) {
  if (o.type != msgpack::type::POSITIVE_INTEGER) return false;
  out = o.via.u64;
  return true;
}

bool as_str(const msgpack::object& o, std::string& out) {
  if (o.type != msgpack::type::STR) return false;
  out.assign(o.via.str.ptr, o.via.str.size);
  return true;
}

bool as_str_array(const msgpack::object& o, std::vector<std::string>& out) {
  if (o.type != msgpack::type::ARRAY) return false;
  out.clear();
  out.reserve(o.via.array.size);
  for (std::uint32_t i = 0; i < o.via.array.size; ++i) {
    if (!as_str(o.via.array.ptr[i], out.emplace_back())) return false;
  }
  return true;
}

// Reads field `index` (1-based after the code) or records which one was wrong.
template <class T, class Reader>
void field(const msgpack::object_array& a, std::uint32_t index, const char* name, T& out, Reader read,
           std::optional<failure>& fail) {
  if (fail) return;
  if (!read(a.ptr[index], out)) fail = failure{decode_error::bad_field, std::string("field '") + name + "' has the wrong type"};
}

void read_id(const msgpack::object_array& a, std::uint64_t& id, std::optional<failure>& fail) {
  field(a, 1, "id", id, as_uint, fail);
  if (!fail && id == 0) fail = failure{decode_error::bad_field, "request id 0 is reserved"};
}

void read_bytes(const msgpack::object_array& a, std::string_view& out, std::optional<failure>& fail) {
  if (fail) return;
  if (a.ptr[2].type != msgpack::type::BIN) fail = failure{decode_error::bad_field, "field 'bytes' is not binary"};
  else out = std::string_view(a.ptr[2].via.bin.ptr, a.ptr[2].via.bin.size);
}

// Streams are fds 1 and 2 (stdout, stderr) and 3 (the IPC channel).
void read_stream_fd(const msgpack::object_array& a, std::uint32_t& fd, std::optional<failure>& fail) {
  std::uint64_t n = 0;
  field(a, 2, "fd", n, as_uint, fail);
  if (!fail && !protocol::is_stream_fd(n)) fail = failure{decode_error::bad_field, "field 'fd' must be 1, 2 or 3"};
  fd = static_cast<std::uint32_t>(n);
}

std::optional<failure> read_options(const msgpack::object& o, spawn_options& opts) {
  if (o.type != msgpack::type::MAP) return failure{decode_error::bad_field, "field 'options' is not a map"};
  for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
    const auto& kv = o.via.map.ptr[i];
    std::string key;
    if (!as_str(kv.key, key)) return failure{decode_error::bad_option, "an option key is not a string"};
    const auto& v = kv.val;
    bool ok = true;
    std::uint64_t u = 0;
    std::string s;
    namespace opt = protocol::option;
    if (key == opt::cwd) ok = as_str(v, opts.cwd.emplace());
    else if (key == opt::env) ok = as_str_array(v, opts.env.emplace());
    else if (key == opt::argv0) ok = as_str(v, opts.argv0.emplace());
    else if (key == opt::stream_token) ok = as_str(v, opts.stream_token);
    else if (key == opt::stdio) {
      ok = v.type == msgpack::type::ARRAY && v.via.array.size == 3;
      for (std::uint32_t k = 0; ok && k < 3; ++k) {
        ok = as_uint(v.via.array.ptr[k], u) && u <= static_cast<std::uint64_t>(protocol::stdio_kind::given);
        if (ok) opts.stdio[k] = static_cast<protocol::stdio_kind>(u);
      }
    } else if (key == opt::given) {
      ok = v.type == msgpack::type::ARRAY && v.via.array.size == 3;
      for (std::uint32_t k = 0; ok && k < 3; ++k) ok = as_uint(v.via.array.ptr[k], opts.given[k]);
    } else if (key == opt::detached) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) opts.detached = v.via.boolean;
    } else if (key == opt::node_cwd) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) opts.node_cwd = v.via.boolean;
    } else if (key == opt::ipc) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) opts.ipc = v.via.boolean;
    } else if (key == opt::handover) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) opts.handover = v.via.boolean;
    } else if (key == opt::ipc_connected) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) opts.ipc_connected = v.via.boolean;
    } else if (key == opt::windows_hide || key == opt::windows_verbatim_arguments) {
      ok = v.type == msgpack::type::BOOLEAN;
      if (ok) (key == opt::windows_hide ? opts.windows_hide : opts.windows_verbatim_arguments) = v.via.boolean;
    } else if (key == opt::timeout_ms) ok = as_uint(v, opts.timeout_ms);
    else if (key == opt::kill_signal) ok = as_str(v, opts.kill_signal);
    else if (key == opt::max_buffer) ok = as_uint(v, opts.max_buffer.emplace());
    else if (key == opt::max_output) ok = as_uint(v, opts.max_output.emplace());
    else if (key == opt::credit) ok = as_uint(v, opts.credit.emplace());
    else if (key == opt::result) ok = as_uint(v, opts.result.emplace());
    else if (key == opt::uid || key == opt::gid) {
      ok = as_uint(v, u) && u <= std::numeric_limits<std::uint32_t>::max();
      if (ok) (key == opt::uid ? opts.uid : opts.gid) = static_cast<std::uint32_t>(u);
    } else if (key == opt::pty) {
      ok = v.type == msgpack::type::ARRAY && v.via.array.size == 2;
      auto& size = opts.pty.emplace();
      for (std::uint32_t k = 0; ok && k < 2; ++k) ok = as_uint(v.via.array.ptr[k], u) && u >= 1 && u <= 0xffff && ((size[k] = static_cast<std::uint16_t>(u)), true);
    } else return failure{decode_error::bad_option, "unknown spawn option '" + key + "'"};
    if (!ok) return failure{decode_error::bad_option, "spawn option '" + key + "' has the wrong type"};
  }
  return std::nullopt;
}

std::size_t expected_size(msg code) {
  switch (code) {
    case msg::spawn: return protocol::spawn_size;
    case msg::write: return protocol::write_size;
    case msg::end: return protocol::end_size;
    case msg::kill: return protocol::kill_size;
    case msg::credit: return protocol::credit_size;
    case msg::shutdown: return protocol::shutdown_size;
    case msg::remove_tree: return protocol::remove_tree_size;
    case msg::close_output: return protocol::close_output_size;
    case msg::send: return protocol::send_size;
    case msg::send_quiet: return protocol::send_quiet_size;
    case msg::ping: return protocol::ping_size;
    case msg::await_spawn: return protocol::await_spawn_size;
    case msg::resize: return protocol::resize_size;
    default: return 0;  // not a message the helper accepts
  }
}

decoded_request decode_array(const msgpack::object_array& a) {
  decoded_request out;
  std::uint64_t code = 0;
  if (!as_uint(a.ptr[0], code) || code > 255 || expected_size(static_cast<msg>(code)) == 0) {
    out.error = decode_error::unknown_message;
    out.detail = "unknown message type";
    // Appended in two steps: GCC 12 at -O3 warns (-Wrestrict, a false positive) about
    // `" " + std::to_string(code)` inlined here, and release builds treat warnings as errors.
    if (code) out.detail.append(" ").append(std::to_string(code));
    return out;
  }
  const auto type = static_cast<msg>(code);
  if (a.size >= 2 && a.ptr[1].type == msgpack::type::POSITIVE_INTEGER && a.ptr[1].via.u64 != 0 && type != msg::shutdown &&
      type != msg::ping) {
    out.id = a.ptr[1].via.u64;
  }
  if (a.size != expected_size(type)) {
    out.error = decode_error::wrong_size;
    out.detail = "message type " + std::to_string(code) + " needs " + std::to_string(expected_size(type)) +
                 " elements, got " + std::to_string(a.size);
    return out;
  }
  std::optional<failure> fail;
  switch (type) {
    case msg::spawn: {
      spawn_request r;
      read_id(a, r.id, fail);
      field(a, 2, "file", r.file, as_str, fail);
      field(a, 3, "args", r.args, as_str_array, fail);
      if (!fail) fail = read_options(a.ptr[4], r.options);
      out.value = std::move(r);
      break;
    }
    case msg::write: {
      write_request r;
      read_id(a, r.id, fail);
      read_bytes(a, r.bytes, fail);
      out.value = std::move(r);
      break;
    }
    case msg::send:
    case msg::send_quiet: {
      send_request r;
      r.quiet = type == msg::send_quiet;
      read_id(a, r.id, fail);
      read_bytes(a, r.bytes, fail);
      out.value = std::move(r);
      break;
    }
    case msg::end: {
      end_request r;
      read_id(a, r.id, fail);
      out.value = r;
      break;
    }
    case msg::kill: {
      kill_request r;
      read_id(a, r.id, fail);
      field(a, 2, "signal", r.signal, as_str, fail);
      out.value = std::move(r);
      break;
    }
    case msg::credit: {
      credit_request r;
      read_id(a, r.id, fail);
      read_stream_fd(a, r.fd, fail);
      field(a, 3, "bytes", r.bytes, as_uint, fail);
      out.value = r;
      break;
    }
    case msg::close_output: {
      close_output_request r;
      read_id(a, r.id, fail);
      read_stream_fd(a, r.fd, fail);
      out.value = r;
      break;
    }
    case msg::shutdown: {
      shutdown_request r;
      field(a, 1, "grace_ms", r.grace_ms, as_uint, fail);
      out.value = r;
      break;
    }
    case msg::ping: {
      ping_request r;
      field(a, 1, "token", r.token, as_uint, fail);
      out.value = r;
      break;
    }
    case msg::await_spawn: {
      await_spawn_request r;
      read_id(a, r.id, fail);
      out.value = r;
      break;
    }
    case msg::resize: {
      resize_request r;
      std::uint64_t cols = 0, rows = 0;
      read_id(a, r.id, fail);
      field(a, 2, "cols", cols, as_uint, fail);
      field(a, 3, "rows", rows, as_uint, fail);
      if (!fail && (cols < 1 || rows < 1 || cols > 0xffff || rows > 0xffff)) fail = failure{decode_error::bad_field, "cols and rows must be 1 to 65535"};
      r.cols = static_cast<std::uint16_t>(cols), r.rows = static_cast<std::uint16_t>(rows);
      out.value = r;
      break;
    }
    case msg::remove_tree: {
      remove_tree_request r;
      read_id(a, r.id, fail);
      field(a, 2, "path", r.path, as_str, fail);
      out.value = std::move(r);
      break;
    }
    default: break;
  }
  if (fail) {
    out.error = fail->error;
    out.detail = std::move(fail->detail);
  }
  return out;
}

}  // namespace

decoded_request decode_request(std::string_view body) noexcept {
  decoded_request out;
  try {
    std::size_t offset = 0;
    // Limits keep a lying header (an array "of 4 billion elements") from allocating:
    // no container can hold more elements than the body has bytes.
    const std::size_t n = body.size();
    const msgpack::unpack_limit limit(n, n / 2, n, n, n, 8);
    // Binary fields point into `body` instead of being copied into the unpacker's zone:
    // read_bytes only points at them, and the child copies what it cannot write at once.
    const msgpack::unpack_reference_func bin_in_place = [](msgpack::type::object_type type, std::size_t, void*) {
      return type == msgpack::type::BIN;
    };
    msgpack::object_handle handle = msgpack::unpack(body.data(), n, offset, bin_in_place, nullptr, limit);
    if (offset != n) {
      out.error = decode_error::not_msgpack;
      out.detail = "trailing bytes after the message";
      return out;
    }
    const msgpack::object& o = handle.get();
    if (o.type != msgpack::type::ARRAY || o.via.array.size == 0) {
      out.error = decode_error::not_array;
      out.detail = "a message must be a non-empty array";
      return out;
    }
    return decode_array(o.via.array);
  } catch (const std::bad_alloc&) {
    out.error = decode_error::not_msgpack;
    out.detail = "message too large to decode";
  } catch (const std::exception& e) {
    out.error = decode_error::not_msgpack;
    out.detail = std::string("not MessagePack: ") + e.what();
  }
  return out;
}

}  // namespace spawnhost
