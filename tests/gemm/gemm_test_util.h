#ifndef TESTS_GEMM_GEMM_TEST_UTIL_H_
#define TESTS_GEMM_GEMM_TEST_UTIL_H_

// Gemm problems, random operands and a double-precision reference with an
// error bound for f32 accumulation, shared by the emitted gemm's suites.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "stream_executor/blas.h"
#include "stream_executor/device_address_allocator.h"
#include "stream_executor/kernel.h"
#include "stream_executor/launch_dim.h"
#include "stream_executor/stream.h"
#include "tests/platform_test_util.h"
#include "xla_lite/runtime/gemm_config.h"

namespace xla_lite::testing {

namespace se = ::stream_executor;

struct GemmProblem {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool transpose_lhs = false, transpose_rhs = false;
  float alpha = 1.0f, beta = 0.0f;
  se::blas::DataType type = se::blas::DataType::kF32;
  // The output's type when it is not `type` (f32 for bf16 operands).
  std::optional<se::blas::DataType> output_type;
  // A second, inner batch dimension stored as attention's heads are: each
  // operand is [batch, rows, inner_batch, cols + pad], so the inner batch
  // is `cols + pad` elements apart, a stored row is inner_batch * (cols +
  // pad) long, and the two batch dimensions do not merge.
  int64_t inner_batch = 1;
  int64_t pad = 0;

  // Dense (GemmConfig::For: rank 3 when batch > 1, else rank 2) unless
  // inner_batch or pad ask for the strided form.
  absl::StatusOr<gpu::GemmConfig> Config() const;
  std::string ToString() const;
};

// Operands as the element values their buffers hold (already rounded to
// bf16 for bf16 buffers), op() not applied.
struct GemmOperands {
  std::vector<float> lhs, rhs, out;
};

GemmOperands RandomOperands(const gpu::GemmConfig& config, std::mt19937& rng);

// The expected output in double, and per element how far a correct f32
// kernel may be from it: rounding of every product and partial sum, of
// alpha and beta, and of the final bf16 store.
struct ExpectedGemm {
  std::vector<double> value, tolerance;
};
ExpectedGemm ReferenceGemm(const gpu::GemmConfig& config,
                           const GemmOperands& operands);

// Fails naming the first few elements (batch, row, column) outside their
// tolerance; NaN is expected to be NaN.
::testing::AssertionResult MatchesReference(const gpu::GemmConfig& config,
                                            const std::vector<float>& got,
                                            const ExpectedGemm& want);

// Element values to and from the bytes a buffer of `type` holds.
std::vector<uint8_t> ToBytes(se::blas::DataType type,
                             const std::vector<float>& values);
std::vector<float> FromBytes(se::blas::DataType type,
                             const std::vector<uint8_t>& bytes);

// Platform tests with buffers of element values.
class GemmPlatformTest : public PlatformTest {
 protected:
  se::ScopedDeviceAddress Upload(se::blas::DataType type,
                                 const std::vector<float>& values);
  std::vector<float> Download(se::blas::DataType type,
                              const se::DeviceAddressBase& mem);
  se::StreamExecutorAllocator* allocator();
  se::Stream* stream();

  // Loads `spec` and launches it on (lhs, rhs, out) holding `operands`;
  // returns out's elements afterwards. With `offset`, lhs, rhs and out
  // start that many elements into their allocations (unaligned for vector
  // loads and stores when it is odd).
  absl::StatusOr<std::vector<float>> RunKernel(const se::KernelSpec& spec,
                                               const se::LaunchDimensions& dims,
                                               const gpu::GemmConfig& config,
                                               const GemmOperands& operands,
                                               int64_t offset = 0);

  std::unique_ptr<se::StreamExecutorAllocator> allocator_;
  std::unique_ptr<se::Stream> stream_;
};

// Problems covering the edge cases of a tiled kernel: sizes of one, sizes
// that are not multiples of any tile, exact multiples, k = 1, a long k, and
// a batch; every one with each of the four transpose combinations, and
// alpha/beta varied across them.
std::vector<GemmProblem> EdgeCaseProblems(se::blas::DataType type);

// Strided batches (two batch dimensions that do not merge, padded leading
// dimensions) and bf16 operands with an f32 output, each with the four
// transpose combinations and alpha/beta varied.
std::vector<GemmProblem> StridedProblems();

}  // namespace xla_lite::testing

#endif  // TESTS_GEMM_GEMM_TEST_UTIL_H_
