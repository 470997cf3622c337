// Categories of undecodable input. The names are part of the protocol: the shared
// vectors in schema/vectors.json expect exactly these, from both decoders.
#pragma once

namespace spawnhost {

enum class decode_error {
  none,
  oversized,        // length prefix over the frame limit (fatal)
  truncated,        // the stream ended inside a frame
  not_msgpack,      // the body is not exactly one MessagePack value
  not_array,        // the value is not a non-empty array
  unknown_message,  // the first element is not a message code this side accepts
  wrong_size,       // the array has more or fewer elements than the message has fields
  bad_field,        // a field has the wrong type or an invalid value
  bad_option,       // a spawn option is unknown or has the wrong type
};

constexpr const char* to_string(decode_error e) noexcept {
  switch (e) {
    case decode_error::none: return "none";
    case decode_error::oversized: return "oversized";
    case decode_error::truncated: return "truncated";
    case decode_error::not_msgpack: return "not_msgpack";
    case decode_error::not_array: return "not_array";
    case decode_error::unknown_message: return "unknown_message";
    case decode_error::wrong_size: return "wrong_size";
    case decode_error::bad_field: return "bad_field";
    case decode_error::bad_option: return "bad_option";
  }
  return "unknown";
}

}  // namespace spawnhost
