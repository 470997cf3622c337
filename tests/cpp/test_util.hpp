// Small helpers shared by the C++ tests.
#pragma once
#include <msgpack.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace spawnhost::test {

inline std::string unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

inline std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string frame(const std::string& body) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((body.size() >> (8 * i)) & 0xff);
  return out + body;
}

// A MessagePack value as JSON, binary as {"$bin": hex}: the form of schema/vectors.json.
inline nlohmann::json to_json(const msgpack::object& o) {
  using nlohmann::json;
  switch (o.type) {
    case msgpack::type::NIL: return nullptr;
    case msgpack::type::BOOLEAN: return o.via.boolean;
    case msgpack::type::POSITIVE_INTEGER: return o.via.u64;
    case msgpack::type::NEGATIVE_INTEGER: return o.via.i64;
    case msgpack::type::STR: return std::string(o.via.str.ptr, o.via.str.size);
    case msgpack::type::BIN: return json{{"$bin", hex(std::string(o.via.bin.ptr, o.via.bin.size))}};
    case msgpack::type::ARRAY: {
      json a = json::array();
      for (std::uint32_t i = 0; i < o.via.array.size; ++i) a.push_back(to_json(o.via.array.ptr[i]));
      return a;
    }
    case msgpack::type::MAP: {
      json m = json::object();
      for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& k = o.via.map.ptr[i].key;
        m[k.type == msgpack::type::STR ? std::string(k.via.str.ptr, k.via.str.size) : "?"] = to_json(o.via.map.ptr[i].val);
      }
      return m;
    }
    default: return "unsupported";
  }
}

}  // namespace spawnhost::test
