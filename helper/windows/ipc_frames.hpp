// libuv's framing of an IPC pipe on Windows, which a Node child forked through the
// Windows helper speaks on its channel (NODE_CHANNEL_FD). Every write on such a pipe is
// one frame: a 16-byte head of four little-endian 32-bit words
//   flags, reserved (ignored), data_length, reserved (must be zero)
// where flags says whether `data_length` bytes of data follow (has_data) and whether a
// socket's description (a WSAPROTOCOL_INFOW and a delayed error, 632 bytes) comes
// between head and data (has_socket, with is_tcp_connection). Node's own framing (JSON
// lines, or V8 serialization behind a length) runs inside the data, and may be split
// over frames at any byte.
//
// The helper relays a channel's data exactly as on POSIX, so Node's side needs no
// Windows code: `ipc_deframer` drops heads (and socket descriptions, which cannot cross
// the relay: the NODE_HANDLE message they came with reaches Node, which refuses it as
// it refuses a descriptor on a POSIX relayed channel), `ipc_frame_head` makes the head
// for bytes going to the child. Plain C++: unit-tested on every platform.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace spawnhost::windows {

inline constexpr std::uint32_t ipc_has_data = 0x01;
inline constexpr std::uint32_t ipc_has_socket = 0x02;
inline constexpr std::uint32_t ipc_is_tcp_connection = 0x04;
inline constexpr std::uint32_t ipc_valid_flags = 0x07;
inline constexpr std::size_t ipc_head_size = 16;
inline constexpr std::size_t ipc_socket_info_size = 632;

inline void put_u32(unsigned char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}
inline std::uint32_t get_u32(const unsigned char* at) {
  return static_cast<std::uint32_t>(at[0]) | static_cast<std::uint32_t>(at[1]) << 8 |
         static_cast<std::uint32_t>(at[2]) << 16 | static_cast<std::uint32_t>(at[3]) << 24;
}

// The head of a frame carrying `length` bytes of data (length > 0).
inline void ipc_frame_head(unsigned char (&head)[ipc_head_size], std::uint32_t length) {
  put_u32(head, ipc_has_data);
  put_u32(head + 4, 0);
  put_u32(head + 8, length);
  put_u32(head + 12, 0);
}

class ipc_deframer {
 public:
  // Turns `size` bytes read from the pipe, at `data`, into the data they carry, moved
  // to the front of `data`; returns how many. Heads may be split over reads at any
  // byte. False (nothing kept) when the bytes are not libuv's framing, as libuv
  // itself ends the channel then (ECONNABORTED).
  bool take(char* data, std::size_t size, std::size_t& out) {
    out = 0;
    std::size_t at = 0;
    while (at < size) {
      if (data_left_ > 0) {
        const std::size_t n = data_left_ < size - at ? static_cast<std::size_t>(data_left_) : size - at;
        std::memmove(data + out, data + at, n);
        out += n;
        at += n;
        data_left_ -= static_cast<std::uint32_t>(n);
        continue;
      }
      if (skip_left_ > 0) {  // a socket's description: not ours to use
        const std::size_t n = skip_left_ < size - at ? skip_left_ : size - at;
        at += n;
        skip_left_ -= n;
        if (skip_left_ == 0) data_left_ = pending_length_;
        continue;
      }
      const std::size_t n = ipc_head_size - head_have_ < size - at ? ipc_head_size - head_have_ : size - at;
      std::memcpy(head_ + head_have_, data + at, n);
      head_have_ += n;
      at += n;
      if (head_have_ < ipc_head_size) break;
      head_have_ = 0;
      const std::uint32_t flags = get_u32(head_);
      const std::uint32_t length = get_u32(head_ + 8);
      if ((flags & ~ipc_valid_flags) != 0 || get_u32(head_ + 12) != 0) return false;
      if (!(flags & ipc_has_data) && length != 0) return false;
      if ((flags & ipc_is_tcp_connection) && !(flags & ipc_has_socket)) return false;
      if (flags & ipc_has_socket) {
        skip_left_ = ipc_socket_info_size;
        pending_length_ = length;
      } else {
        data_left_ = length;
      }
    }
    return true;
  }

 private:
  unsigned char head_[ipc_head_size];
  std::size_t head_have_ = 0;
  std::uint32_t data_left_ = 0;
  std::size_t skip_left_ = 0;
  std::uint32_t pending_length_ = 0;
};

}  // namespace spawnhost::windows
