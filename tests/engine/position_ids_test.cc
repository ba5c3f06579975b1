#include "engine/pe/position_ids.h"

#include <gtest/gtest.h>

#include <vector>

namespace tinyenc {
namespace {

TEST(PositionIds, SequentialRestartsInEverySequenceAndNumbersPadding) {
  const std::vector<int32_t> lengths = {3, 2};
  std::vector<int32_t> ids(6);
  position_ids(lengths.data(), 2, 3, /*padding_idx=*/-1, ids.data());
  EXPECT_EQ(ids, (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

// Hugging Face RoBERTa, pad id 1, padding_idx 1:
//   input_ids [[0, 31414, 232, 2, 1, 1], [0, 20920, 2, 1, 1, 1]]
//   position  [[2, 3, 4, 5, 1, 1],       [2, 3, 4, 1, 1, 1]]
TEST(PositionIds, RobertaCountsFromPaddingIdxPlusOneAndGivesPadsPaddingIdx) {
  const std::vector<int32_t> lengths = {4, 3};
  std::vector<int32_t> positions(12);
  position_ids(lengths.data(), 2, 6, /*padding_idx=*/1, positions.data());
  EXPECT_EQ(positions, (std::vector<int32_t>{2, 3, 4, 5, 1, 1, 2, 3, 4, 1, 1, 1}));
}

TEST(PositionIds, PaddingIdxZeroStartsRealTokensAtOne) {
  const std::vector<int32_t> lengths = {3};
  std::vector<int32_t> positions(4);
  position_ids(lengths.data(), 1, 4, /*padding_idx=*/0, positions.data());
  EXPECT_EQ(positions, (std::vector<int32_t>{1, 2, 3, 0}));
}

}  // namespace
}  // namespace tinyenc
