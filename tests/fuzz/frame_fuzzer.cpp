// libFuzzer target: arbitrary bytes from Node's side of the pipe, split at points the
// input itself chooses, through the frame decoder and the request decoder. Neither may
// crash, hang, leak, or accept a frame over the limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "protocol/frame_decoder.hpp"
#include "protocol/messages.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace spawnhost;
  if (size == 0) return 0;
  // The first byte picks the read size, so the corpus explores splits as well as bytes.
  const std::size_t piece = 1 + data[0] % 64;
  const char* bytes = reinterpret_cast<const char*>(data + 1);
  size -= 1;
  frame_decoder decoder;
  for (std::size_t at = 0; at < size; at += piece) {
    const std::size_t n = at + piece > size ? size - at : piece;
    const decode_error e = decoder.feed(bytes + at, n, [](std::string_view body) {
      if (body.size() > protocol::max_body_bytes) std::abort();
      const decoded_request r = decode_request(body);
      if (r.error == decode_error::none && r.value.valueless_by_exception()) std::abort();
    });
    if (e != decode_error::none) break;
  }
  return 0;
}
