#include "protocol/frame_decoder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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

// The channel's way: reads land in prepare()'s room. Once a large frame's head is in,
// the room covers its whole body, so the body is read into place and never moved.
TEST(FrameDecoder, PrepareOffersRoomForTheWholeFrameInProgress) {
  frame_decoder d;
  const std::string big(300000, 'y');
  const std::string input = test::frame("a") + test::frame(big) + test::frame("tail");
  std::vector<std::string> frames;
  std::size_t pos = 0;
  const char* body_room = nullptr;
  while (pos < input.size()) {
    auto [room, size] = d.prepare(4096);
    ASSERT_GT(size, 0u);
    if (pos == 5 + 4) {  // the big frame's head is in: its body must fit behind it
      EXPECT_GE(size, big.size());
      body_room = room;
    }
    // Reads as a socket gives them: never more than asked, here at most 4 KiB or the head.
    const std::size_t n = std::min({size, std::size_t{4096}, input.size() - pos, pos < 9 ? 9 - pos : std::size_t{4096}});
    std::memcpy(room, input.data() + pos, n);
    pos += n;
    EXPECT_EQ(d.commit(n, [&](std::string_view body) {
      if (body.size() == big.size()) {
        EXPECT_EQ(body.data(), body_room);  // delivered in place
      }
      frames.emplace_back(body);
    }), decode_error::none);
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0], "a");
  EXPECT_EQ(frames[1], big);
  EXPECT_EQ(frames[2], "tail");
  EXPECT_FALSE(d.mid_frame());
}

TEST(FrameDecoder, KeepsAPartialFrameWhenItMakesRoom) {
  frame_decoder d;
  const std::string input = test::frame(std::string(5000, 'p')) + test::frame("next");
  // The first frame and part of the second arrive together; the rest needs more room
  // than is left, so the partial frame moves to the front and must survive the move.
  const std::size_t first = 5004 + 3;
  auto [room, size] = d.prepare(first);
  std::memcpy(room, input.data(), first);
  std::vector<std::string> frames;
  d.commit(first, [&](std::string_view b) { frames.emplace_back(b); });
  auto [room2, size2] = d.prepare(size + 1);
  ASSERT_GE(size2, size + 1);
  std::memcpy(room2, input.data() + first, input.size() - first);
  d.commit(input.size() - first, [&](std::string_view b) { frames.emplace_back(b); });
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1], "next");
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
