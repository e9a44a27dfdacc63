#ifndef XLA_LITE_TRAINING_STEP_STATISTICS_H_
#define XLA_LITE_TRAINING_STEP_STATISTICS_H_

#include <vector>

namespace xla_lite {

// The q-quantile (0..1) of `values` (step times) by nearest rank; 0 when
// empty.
double Quantile(std::vector<double> values, double q);

}  // namespace xla_lite

#endif  // XLA_LITE_TRAINING_STEP_STATISTICS_H_
