#include "xla_lite/training/step_statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace xla_lite {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  int64_t rank = static_cast<int64_t>(std::ceil(q * values.size())) - 1;
  return values[std::clamp<int64_t>(rank, 0, values.size() - 1)];
}

}  // namespace xla_lite
