#include "models/normalize_embedding.h"

#include <algorithm>
#include <cmath>

namespace tinyenc {

void normalize_embedding(std::vector<float>& embedding) {
  // The sum of squares in double: a float32 sum loses digits over a few thousand dimensions.
  double squares = 0.0;
  for (const float value : embedding) squares += static_cast<double>(value) * value;
  const double norm = std::max(std::sqrt(squares), 1e-12);
  for (float& value : embedding) value = static_cast<float>(value / norm);
}

}  // namespace tinyenc
