#ifndef XLA_LITE_RUNTIME_GEMM_CONFIG_H_
#define XLA_LITE_RUNTIME_GEMM_CONFIG_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "stream_executor/blas.h"
#include "stream_executor/device_address.h"
#include "xla_lite/shape.h"

namespace xla_lite::gpu {

// A row-major (batched) matrix product as HLO describes it:
//   out[b, m, n] = alpha * sum_k op(lhs)[b, m, k] * op(rhs)[b, k, n]
//                  + beta * out[b, m, n]
// where op() transposes the two minor dimensions when asked. Operands are
// rank 2, or rank 3 with a leading batch dimension shared by all three.
struct GemmConfig {
  // Checks that the shapes describe such a product and derives its sizes.
  static absl::StatusOr<GemmConfig> For(const Shape& lhs, bool transpose_lhs,
                                        const Shape& rhs, bool transpose_rhs,
                                        const Shape& output, float alpha,
                                        float beta);

  // The same product in BLAS's column-major terms. A row-major matrix is
  // its column-major transpose, so out^T = op(rhs)^T * op(lhs)^T: the
  // operands swap places and m and n trade roles.
  se::blas::GemmCall ToBlasCall(se::DeviceAddressBase lhs,
                                se::DeviceAddressBase rhs,
                                se::DeviceAddressBase output) const;

  std::string ToString() const;

  Shape lhs_shape, rhs_shape, output_shape;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  float alpha = 1.0f;
  float beta = 0.0f;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  se::blas::DataType type = se::blas::DataType::kF32;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_GEMM_CONFIG_H_
