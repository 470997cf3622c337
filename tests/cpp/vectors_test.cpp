// Replays schema/vectors.json, the vectors the JS suite replays too. Frames for Node
// are built with the helper's encoders and must match byte for byte; frames for the
// helper must decode (or fail with the listed category) through the real decoder.
#include <gtest/gtest.h>
#include <msgpack.hpp>

#include <nlohmann/json.hpp>

#include "protocol/frame_decoder.hpp"
#include "protocol/messages.hpp"
#include "test_util.hpp"

namespace spawnhost {
namespace {

using nlohmann::json;

using test::to_json;

std::optional<std::string_view> opt_str(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get_ref<const std::string&>();
}

// Builds a helper → Node frame with the helper's own encoder, from the vector's fields.
std::string encode_with_helper(const json& d) {
  const int code = d[0];
  switch (static_cast<protocol::msg>(code)) {
    case protocol::msg::hello: return encode::hello(d[2].get<std::string>(), d[3]);
    case protocol::msg::spawned: return encode::spawned(d[1], d[2], d[3], d[4]);
    case protocol::msg::spawn_error: return encode::spawn_error(d[1], d[2].get<std::string>(), d[3].get<std::string>());
    case protocol::msg::data: {
      const std::string bytes = test::unhex(d[3]["$bin"]);
      return encode::data(d[1], d[2], bytes.data(), bytes.size());
    }
    case protocol::msg::eof: return encode::eof(d[1], d[2]);
    case protocol::msg::exit:
      return encode::exit(d[1], d[2].is_null() ? std::nullopt : std::optional<std::int64_t>(d[2].get<std::int64_t>()),
                          opt_str(d[3]), d[4]);
    case protocol::msg::written: return encode::written(d[1], d[2]);
    case protocol::msg::stdin_error: return encode::stdin_error(d[1], d[2].get<std::string>());
    case protocol::msg::error:
      return encode::error(d[1].is_null() ? std::nullopt : std::optional<std::uint64_t>(d[1].get<std::uint64_t>()), d[2],
                           d[3].get<std::string>());
    case protocol::msg::removed: return encode::removed(d[1], opt_str(d[2]), opt_str(d[3]));
    case protocol::msg::sent: return encode::sent(d[1], d[2]);
    case protocol::msg::send_error: return encode::send_error(d[1], d[2].get<std::string>());
    case protocol::msg::pong: return encode::pong(d[1]);
    case protocol::msg::spawn_known:
      return encode::spawn_known(d[1], d[2].is_null() ? std::nullopt : std::optional<std::uint64_t>(d[2].get<std::uint64_t>()),
                                 opt_str(d[3]));
    case protocol::msg::result: {
      const std::string out = test::unhex(d[5]["$bin"]), err = test::unhex(d[6]["$bin"]);
      return encode::result(d[1], d[2].is_null() ? std::nullopt : std::optional<std::int64_t>(d[2].get<std::int64_t>()),
                            opt_str(d[3]), d[4], out, err, d[7], d[8], d[9]);
    }
    default: ADD_FAILURE() << "no encoder for code " << code; return {};
  }
}

struct outcome {
  decode_error error = decode_error::none;
  std::vector<std::string> bodies;
};

outcome split(const std::string& bytes) {
  outcome out;
  frame_decoder d;
  out.error = d.feed(bytes.data(), bytes.size(), [&](std::string_view b) { out.bodies.emplace_back(b); });
  if (out.error == decode_error::none && d.mid_frame()) out.error = decode_error::truncated;
  return out;
}

class Vectors : public ::testing::Test {
 protected:
  static json load() { return json::parse(test::read_file(SPAWNHOST_SOURCE_DIR "/schema/vectors.json"))["vectors"]; }
};

TEST_F(Vectors, FileHasValidAndInvalidVectors) {
  const json v = load();
  int valid = 0, invalid = 0;
  for (const auto& x : v) (x["valid"].get<bool>() ? valid : invalid)++;
  EXPECT_GE(valid, 20);
  EXPECT_GE(invalid, 15);
}

TEST_F(Vectors, ValidFramesForNodeAreWhatTheHelperEncodes) {
  int checked = 0;
  for (const auto& v : load()) {
    if (!v["valid"] || v["decoded"][0].get<int>() >= 16) continue;
    EXPECT_EQ(test::hex(encode_with_helper(v["decoded"])), v["hex"].get<std::string>()) << v["name"];
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST_F(Vectors, ValidFramesForTheHelperDecode) {
  int checked = 0;
  for (const auto& v : load()) {
    if (!v["valid"] || v["decoded"][0].get<int>() < 16) continue;
    const outcome o = split(test::unhex(v["hex"]));
    ASSERT_EQ(o.error, decode_error::none) << v["name"];
    ASSERT_EQ(o.bodies.size(), 1u) << v["name"];
    const decoded_request r = decode_request(o.bodies[0]);
    EXPECT_EQ(r.error, decode_error::none) << v["name"] << ": " << r.detail;
    msgpack::object_handle h = msgpack::unpack(o.bodies[0].data(), o.bodies[0].size());
    EXPECT_EQ(to_json(h.get()), v["decoded"]) << v["name"];
    ++checked;
  }
  EXPECT_GE(checked, 8);
}

TEST_F(Vectors, InvalidFramesAreRejectedWithTheirCategory) {
  for (const auto& v : load()) {
    if (v["valid"]) continue;
    const outcome o = split(test::unhex(v["hex"]));
    decode_error got = o.error;
    if (got == decode_error::none) {
      ASSERT_EQ(o.bodies.size(), 1u) << v["name"];
      got = decode_request(o.bodies[0]).error;
    }
    EXPECT_STREQ(to_string(got), v["error"].get<std::string>().c_str()) << v["name"];
  }
}

TEST(Decoder, SpawnOptionsReachTheRequest) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(5);
  pk.pack(16), pk.pack(9), pk.pack(std::string("ls")), pk.pack(std::vector<std::string>{"-l"});
  pk.pack_map(3);
  pk.pack(std::string("cwd")), pk.pack(std::string("/tmp"));
  pk.pack(std::string("stdio")), pk.pack(std::vector<int>{1, 0, 2});
  pk.pack(std::string("timeout_ms")), pk.pack(250);
  const decoded_request r = decode_request({buf.data(), buf.size()});
  ASSERT_EQ(r.error, decode_error::none) << r.detail;
  const auto& s = std::get<spawn_request>(r.value);
  EXPECT_EQ(s.id, 9u);
  EXPECT_EQ(s.args, std::vector<std::string>{"-l"});
  EXPECT_EQ(*s.options.cwd, "/tmp");
  EXPECT_EQ(s.options.stdio[0], protocol::stdio_kind::ignore);
  EXPECT_EQ(s.options.stdio[2], protocol::stdio_kind::inherit);
  EXPECT_EQ(s.options.timeout_ms, 250u);
}

TEST(Decoder, WindowsOptionsReachTheRequest) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_array(5);
  pk.pack(16), pk.pack(4), pk.pack(std::string("cmd.exe")), pk.pack(std::vector<std::string>{});
  pk.pack_map(2);
  pk.pack(std::string("windows_hide")), pk.pack(true);
  pk.pack(std::string("windows_verbatim_arguments")), pk.pack(true);
  const decoded_request r = decode_request({buf.data(), buf.size()});
  ASSERT_EQ(r.error, decode_error::none) << r.detail;
  const auto& s = std::get<spawn_request>(r.value);
  EXPECT_TRUE(s.options.windows_hide);
  EXPECT_TRUE(s.options.windows_verbatim_arguments);
}

TEST(Decoder, AnArrayHeaderThatLiesAboutItsSizeIsRejectedWithoutAllocating) {
  const std::string body = test::unhex("dd7fffffff10");  // array32 claiming 2^31-1 elements
  EXPECT_EQ(decode_request(body).error, decode_error::not_msgpack);
}

TEST(Decoder, DeepNestingIsRejected) {
  std::string body(5000, '\x91');  // [[[[...]]]]
  body.push_back('\x10');
  EXPECT_EQ(decode_request(body).error, decode_error::not_msgpack);
}

// A data frame whose payload was read into place, with the head written in front of
// it, must be the very bytes encode::data builds, whatever the id and size.
TEST(Encoder, DataHeadInFrontOfAPayloadMatchesTheWholeFrameEncoder) {
  for (const std::uint64_t id : {1ULL, 127ULL, 128ULL, 70000ULL, 1ULL << 40}) {
    for (const std::size_t size : {0UL, 1UL, 255UL, 256UL, 65535UL, 65536UL, 262144UL}) {
      std::string buffer(encode::max_data_head + size, '\0');
      char* payload = buffer.data() + encode::max_data_head;
      for (std::size_t i = 0; i < size; ++i) payload[i] = static_cast<char>(i * 7 + 3);
      const char* start = encode::data_head_before(payload, id, 2, size);
      ASSERT_GE(start, buffer.data());
      const std::string in_place(start, static_cast<std::size_t>(payload + size - start));
      EXPECT_EQ(in_place, encode::data(id, 2, payload, size)) << "id " << id << ", size " << size;
    }
  }
}

}  // namespace
}  // namespace spawnhost
