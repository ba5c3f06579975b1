// The L2 normalization of a sentence embedding (sentence-transformers' Normalize module), so that
// the dot product of two embeddings is their cosine similarity.
#pragma once

#include <vector>

namespace tinyenc {

// x / max(||x||_2, 1e-12), as torch.nn.functional.normalize: an all-zero vector stays zero.
void normalize_embedding(std::vector<float>& embedding);

}  // namespace tinyenc
