#include "engine/pe/position_ids.h"

#include <gtest/gtest.h>

#include <vector>

namespace tinyenc {
namespace {

TEST(PositionIds, SequentialRestartsInEverySequence) {
  std::vector<int32_t> ids(6);
  sequential_position_ids(2, 3, ids.data());
  EXPECT_EQ(ids, (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

// Hugging Face RoBERTa, pad id 1, padding_idx 1:
//   input_ids [[0, 31414, 232, 2, 1, 1], [0, 20920, 2, 1, 1, 1]]
//   position  [[2, 3, 4, 5, 1, 1],       [2, 3, 4, 1, 1, 1]]
TEST(PositionIds, RobertaCountsFromPaddingIdxPlusOneAndSkipsPads) {
  const std::vector<int32_t> tokens = {0, 31414, 232, 2, 1, 1, 0, 20920, 2, 1, 1, 1};
  std::vector<int32_t> positions(tokens.size());
  padded_position_ids(tokens.data(), 2, 6, /*pad_token_id=*/1, /*padding_idx=*/1, positions.data());
  EXPECT_EQ(positions, (std::vector<int32_t>{2, 3, 4, 5, 1, 1, 2, 3, 4, 1, 1, 1}));
}

TEST(PositionIds, PadInTheMiddleKeepsCounting) {
  const std::vector<int32_t> tokens = {5, 0, 7, 8};
  std::vector<int32_t> positions(4);
  padded_position_ids(tokens.data(), 1, 4, /*pad_token_id=*/0, /*padding_idx=*/0, positions.data());
  EXPECT_EQ(positions, (std::vector<int32_t>{1, 0, 2, 3}));
}

}  // namespace
}  // namespace tinyenc
