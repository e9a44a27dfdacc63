#include "tests/gemm/gemm_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "Eigen/Core"
#include "absl/strings/str_format.h"

namespace xla_lite::testing {
namespace {

using se::blas::DataType;

bool IsBf16(DataType type) { return type == DataType::kBF16; }

Shape MatrixShape(DataType type, int64_t batch, int64_t rows, int64_t cols) {
  PrimitiveType element =
      IsBf16(type) ? PrimitiveType::BF16 : PrimitiveType::F32;
  if (batch == 1) return Shape(element, {rows, cols});
  return Shape(element, {batch, rows, cols});
}

// Values a buffer of `type` can hold exactly.
std::vector<float> RandomValues(DataType type, int64_t count,
                                std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> values(count);
  for (float& v : values) {
    v = dist(rng);
    if (IsBf16(type)) v = static_cast<float>(Eigen::bfloat16(v));
  }
  return values;
}

}  // namespace

absl::StatusOr<gpu::GemmConfig> GemmProblem::Config() const {
  Shape lhs = transpose_lhs ? MatrixShape(type, batch, k, m)
                            : MatrixShape(type, batch, m, k);
  Shape rhs = transpose_rhs ? MatrixShape(type, batch, n, k)
                            : MatrixShape(type, batch, k, n);
  return gpu::GemmConfig::For(lhs, transpose_lhs, rhs, transpose_rhs,
                              MatrixShape(type, batch, m, n), alpha, beta);
}

std::string GemmProblem::ToString() const {
  return absl::StrFormat("%s batch=%d m=%d n=%d k=%d%s%s alpha=%g beta=%g",
                         se::blas::ToString(type), batch, m, n, k,
                         transpose_lhs ? " lhs^T" : "",
                         transpose_rhs ? " rhs^T" : "", alpha, beta);
}

GemmOperands RandomOperands(const gpu::GemmConfig& config, std::mt19937& rng) {
  GemmOperands operands;
  operands.lhs =
      RandomValues(config.type, config.lhs_shape.ElementCount(), rng);
  operands.rhs =
      RandomValues(config.type, config.rhs_shape.ElementCount(), rng);
  operands.out =
      RandomValues(config.type, config.output_shape.ElementCount(), rng);
  return operands;
}

ExpectedGemm ReferenceGemm(const gpu::GemmConfig& config,
                           const GemmOperands& operands) {
  const int64_t m = config.m, n = config.n, k = config.k;
  const double u = std::ldexp(1.0, -24);      // f32 unit roundoff.
  const double u_bf16 = std::ldexp(1.0, -8);  // bf16 unit roundoff.
  ExpectedGemm want;
  want.value.resize(config.batch * m * n);
  want.tolerance.resize(want.value.size());
  for (int64_t b = 0; b < config.batch; ++b) {
    const float* lhs = &operands.lhs[b * m * k];
    const float* rhs = &operands.rhs[b * k * n];
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
          double a = config.transpose_lhs ? lhs[p * m + i] : lhs[i * k + p];
          double r = config.transpose_rhs ? rhs[j * k + p] : rhs[p * n + j];
          sum += a * r;
          magnitude += std::abs(a * r);
        }
        const int64_t index = (b * m + i) * n + j;
        double scaled_out =
            config.beta == 0 ? 0.0 : double{config.beta} * operands.out[index];
        double value = double{config.alpha} * sum + scaled_out;
        // Sequential f32 summation of k products is within (k + 1) u of the
        // sum of their magnitudes; alpha, beta and the last addition each
        // round once more. Twice that bound, so only a wrong sum fails.
        double tolerance = 2 * u *
                           ((k + 2) * std::abs(config.alpha) * magnitude +
                            2 * std::abs(scaled_out) + std::abs(value));
        if (IsBf16(config.type)) tolerance += 2 * u_bf16 * std::abs(value);
        want.value[index] = value;
        want.tolerance[index] = tolerance + 1e-30;  // Subnormal results.
      }
    }
  }
  return want;
}

::testing::AssertionResult MatchesReference(const gpu::GemmConfig& config,
                                            const std::vector<float>& got,
                                            const ExpectedGemm& want) {
  if (got.size() < want.value.size()) {
    return ::testing::AssertionFailure()
           << config.ToString() << ": got " << got.size() << " elements, want "
           << want.value.size();
  }
  int mismatches = 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  result << config.ToString();
  for (size_t index = 0; index < want.value.size(); ++index) {
    double expected = want.value[index];
    bool ok = std::isnan(expected)
                  ? std::isnan(got[index])
                  : std::abs(got[index] - expected) <= want.tolerance[index];
    if (ok) continue;
    if (++mismatches <= 5) {
      int64_t column = index % config.n, row = index / config.n % config.m,
              batch = index / (config.m * config.n);
      result << absl::StrFormat("\n  [%d](%d,%d): got %.9g, want %.9g +- %.3g",
                                batch, row, column, got[index], expected,
                                want.tolerance[index]);
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return result << "\n  " << mismatches << " of " << want.value.size()
                << " elements differ";
}

std::vector<uint8_t> ToBytes(DataType type, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * se::blas::SizeOf(type));
  // memcpy may not be handed the null data() of an empty vector (k = 0).
  if (bytes.empty()) return bytes;
  if (IsBf16(type)) {
    std::vector<Eigen::bfloat16> converted(values.begin(), values.end());
    std::memcpy(bytes.data(), converted.data(), bytes.size());
  } else {
    std::memcpy(bytes.data(), values.data(), bytes.size());
  }
  return bytes;
}

std::vector<float> FromBytes(DataType type, const std::vector<uint8_t>& bytes) {
  std::vector<float> values(bytes.size() / se::blas::SizeOf(type));
  if (values.empty()) return values;
  if (IsBf16(type)) {
    std::vector<Eigen::bfloat16> stored(values.size());
    std::memcpy(stored.data(), bytes.data(), values.size() * sizeof(stored[0]));
    std::transform(stored.begin(), stored.end(), values.begin(),
                   [](Eigen::bfloat16 v) { return static_cast<float>(v); });
  } else {
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  }
  return values;
}

se::StreamExecutorAllocator* GemmPlatformTest::allocator() {
  if (allocator_ == nullptr) {
    allocator_ = std::make_unique<se::StreamExecutorAllocator>(executor_);
  }
  return allocator_.get();
}

se::ScopedDeviceAddress GemmPlatformTest::Upload(
    DataType type, const std::vector<float>& values) {
  std::vector<uint8_t> bytes = ToBytes(type, values);
  // Empty operands (k = 0) still get a buffer, as allocators may refuse 0.
  uint64_t size = std::max<uint64_t>(bytes.size(), 4);
  auto mem = allocator()->Allocate(executor_->device_ordinal(), size);
  EXPECT_TRUE(mem.ok()) << mem.status();
  if (!mem.ok()) return se::ScopedDeviceAddress();
  if (!bytes.empty()) {
    absl::Status copied =
        executor_->SynchronousMemcpyH2D(bytes.data(), bytes.size(), mem->ptr());
    EXPECT_TRUE(copied.ok()) << copied;
  }
  return std::move(*mem);
}

std::vector<float> GemmPlatformTest::Download(
    DataType type, const se::DeviceAddressBase& mem) {
  std::vector<uint8_t> bytes(mem.size());
  absl::Status copied =
      executor_->SynchronousMemcpyD2H(mem, mem.size(), bytes.data());
  EXPECT_TRUE(copied.ok()) << copied;
  return FromBytes(type, bytes);
}

se::Stream* GemmPlatformTest::stream() {
  if (stream_ == nullptr) {
    auto stream = executor_->CreateStream();
    EXPECT_TRUE(stream.ok()) << stream.status();
    if (stream.ok()) stream_ = std::move(*stream);
  }
  return stream_.get();
}

absl::StatusOr<std::vector<float>> GemmPlatformTest::RunKernel(
    const se::KernelSpec& spec, const se::LaunchDimensions& dims,
    const gpu::GemmConfig& config, const GemmOperands& operands) {
  se::ScopedDeviceAddress lhs = Upload(config.type, operands.lhs);
  se::ScopedDeviceAddress rhs = Upload(config.type, operands.rhs);
  se::ScopedDeviceAddress out = Upload(config.type, operands.out);
  absl::StatusOr<std::unique_ptr<se::Kernel>> kernel =
      executor_->LoadKernel(spec);
  if (!kernel.ok()) return kernel.status();
  if (stream() == nullptr) return absl::InternalError("no stream");
  se::KernelArgs args({lhs.cref(), rhs.cref(), out.cref()});
  absl::Status status = stream()->Launch(dims, **kernel, args);
  if (status.ok()) status = stream()->BlockHostUntilDone();
  if (!status.ok()) return status;
  std::vector<float> result = Download(config.type, out.cref());
  result.resize(operands.out.size());
  return result;
}

std::vector<GemmProblem> EdgeCaseProblems(DataType type) {
  struct Size {
    int64_t batch, m, n, k;
  };
  const Size sizes[] = {
      {1, 1, 1, 1},    {1, 17, 33, 5}, {1, 16, 16, 16},  {1, 64, 64, 64},
      {1, 65, 63, 17}, {1, 7, 130, 1}, {1, 33, 29, 300}, {3, 19, 23, 31},
      {1, 1, 70, 45},  {1, 50, 1, 45}, {2, 128, 96, 40},
  };
  const std::pair<float, float> scalars[] = {
      {1.0f, 0.0f}, {0.5f, 0.0f}, {1.0f, 1.0f}, {-2.0f, 0.5f}, {0.75f, -1.25f}};
  std::vector<GemmProblem> problems;
  int next_scalars = 0;
  for (const Size& size : sizes) {
    for (int transposes = 0; transposes < 4; ++transposes) {
      GemmProblem p;
      p.batch = size.batch, p.m = size.m, p.n = size.n, p.k = size.k;
      p.transpose_lhs = transposes & 1;
      p.transpose_rhs = transposes & 2;
      std::tie(p.alpha, p.beta) = scalars[next_scalars++ % std::size(scalars)];
      p.type = type;
      problems.push_back(p);
    }
  }
  return problems;
}

}  // namespace xla_lite::testing
