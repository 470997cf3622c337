// The C runtime's inherited descriptor table, as CreateProcess passes it to a child in
// STARTUPINFOW's cbReserved2/lpReserved2 (the block the Microsoft C runtime and
// libuv's uv_spawn build): a 32-bit count, then one flag byte per descriptor, then one
// HANDLE per descriptor, packed with no alignment. A Node child opens its IPC channel
// as C runtime descriptor NODE_CHANNEL_FD (3) from this table, and its stdio as 0-2.
#pragma once
#include <windows.h>

#include <cstring>
#include <vector>

namespace spawnhost::windows {

// The C runtime's flags for an open descriptor (FOPEN), a pipe (FPIPE), a character
// device (FDEV).
inline constexpr unsigned char crt_open = 0x01;
inline constexpr unsigned char crt_pipe = 0x08;
inline constexpr unsigned char crt_device = 0x40;

// What the C runtime should take `h` for, as libuv tells by GetFileType.
inline unsigned char crt_flags_for(HANDLE h) {
  if (h == nullptr || h == INVALID_HANDLE_VALUE) return 0;
  switch (GetFileType(h)) {
    case FILE_TYPE_PIPE: return crt_open | crt_pipe;
    case FILE_TYPE_CHAR: return crt_open | crt_device;
    case FILE_TYPE_DISK: return crt_open;
    default: return crt_open | crt_device;
  }
}

// The block for `handles` (descriptor i is handles[i]; null: not open).
inline std::vector<BYTE> crt_descriptor_block(const std::vector<HANDLE>& handles) {
  const int count = static_cast<int>(handles.size());
  std::vector<BYTE> block(sizeof(int) + handles.size() * (1 + sizeof(HANDLE)));
  std::memcpy(block.data(), &count, sizeof count);
  BYTE* flags = block.data() + sizeof(int);
  BYTE* slots = flags + handles.size();
  for (std::size_t i = 0; i < handles.size(); ++i) {
    flags[i] = crt_flags_for(handles[i]);
    const HANDLE h = flags[i] ? handles[i] : INVALID_HANDLE_VALUE;
    std::memcpy(slots + i * sizeof(HANDLE), &h, sizeof h);
  }
  return block;
}

}  // namespace spawnhost::windows
