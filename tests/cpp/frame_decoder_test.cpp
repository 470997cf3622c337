#include "frame_decoder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.hpp"

namespace spawnhost {
namespace {

std::vector<std::string> feed_in_pieces(frame_decoder& d, const std::string& input, std::size_t piece,
                                        decode_error& error) {
  std::vector<std::string> frames;
  error = decode_error::none;
  for (std::size_t i = 0; i < input.size() && error == decode_error::none; i += piece) {
    const std::size_t n = std::min(piece, input.size() - i);
    error = d.feed(input.data() + i, n, [&](std::string_view body) { frames.emplace_back(body); });
  }
  return frames;
}

TEST(FrameDecoder, SplitsBackToBackFrames) {
  frame_decoder d;
  decode_error e;
  auto frames = feed_in_pieces(d, test::frame("abc") + test::frame("") + test::frame("de"), 1 << 20, e);
  EXPECT_EQ(e, decode_error::none);
  EXPECT_EQ(frames, (std::vector<std::string>{"abc", "", "de"}));
  EXPECT_FALSE(d.mid_frame());
}

TEST(FrameDecoder, ReassemblesFramesDeliveredOneByteAtATime) {
  frame_decoder d;
  decode_error e;
  const std::string big(70000, 'x');
  auto frames = feed_in_pieces(d, test::frame("hello") + test::frame(big), 1, e);
  EXPECT_EQ(e, decode_error::none);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0], "hello");
  EXPECT_EQ(frames[1], big);
}

TEST(FrameDecoder, EveryPieceSizeGivesTheSameFrames) {
  const std::string input = test::frame("one") + test::frame("two two") + test::frame(std::string(300, 'z'));
  for (std::size_t piece = 1; piece <= input.size(); ++piece) {
    frame_decoder d;
    decode_error e;
    auto frames = feed_in_pieces(d, input, piece, e);
    ASSERT_EQ(frames.size(), 3u) << "piece size " << piece;
    EXPECT_EQ(frames[1], "two two");
  }
}

TEST(FrameDecoder, RejectsALengthOverTheLimitAndStaysBroken) {
  frame_decoder d(16);
  decode_error e;
  auto frames = feed_in_pieces(d, test::frame("ok") + test::frame(std::string(17, 'x')), 1 << 20, e);
  EXPECT_EQ(frames.size(), 1u);
  EXPECT_EQ(e, decode_error::oversized);
  EXPECT_EQ(d.feed(test::frame("ok").data(), 6, [](std::string_view) { FAIL() << "frame after oversize"; }),
            decode_error::oversized);
}

TEST(FrameDecoder, AcceptsABodyOfExactlyTheLimit) {
  frame_decoder d(16);
  decode_error e;
  auto frames = feed_in_pieces(d, test::frame(std::string(16, 'x')), 3, e);
  EXPECT_EQ(e, decode_error::none);
  EXPECT_EQ(frames.size(), 1u);
}

TEST(FrameDecoder, ReportsAStreamThatEndsInsideAFrame) {
  frame_decoder d;
  const std::string partial = test::frame("abcdef").substr(0, 7);
  d.feed(partial.data(), partial.size(), [](std::string_view) { FAIL(); });
  EXPECT_TRUE(d.mid_frame());
}

}  // namespace
}  // namespace spawnhost
