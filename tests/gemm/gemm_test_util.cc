#include "tests/gemm/gemm_test_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"

namespace xla_lite::testing {
namespace {

using se::blas::DataType;

bool IsBf16(DataType type) { return type == DataType::kBF16; }

PrimitiveType ElementType(DataType type) {
  return IsBf16(type) ? PrimitiveType::BF16 : PrimitiveType::F32;
}

Shape MatrixShape(DataType type, int64_t batch, int64_t rows, int64_t cols) {
  if (batch == 1) return Shape(ElementType(type), {rows, cols});
  return Shape(ElementType(type), {batch, rows, cols});
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
  const DataType out_type = output_type.value_or(type);
  if (inner_batch == 1 && pad == 0) {
    Shape lhs = transpose_lhs ? MatrixShape(type, batch, k, m)
                              : MatrixShape(type, batch, m, k);
    Shape rhs = transpose_rhs ? MatrixShape(type, batch, n, k)
                              : MatrixShape(type, batch, k, n);
    return gpu::GemmConfig::For(lhs, transpose_lhs, rhs, transpose_rhs,
                                MatrixShape(out_type, batch, m, n), alpha,
                                beta);
  }
  // [batch, rows, inner_batch, cols + pad] per operand, as stored.
  auto layout = [&](int64_t rows, int64_t cols, bool transposed,
                    int64_t& outer_stride, int64_t& inner_stride) {
    const int64_t row = cols + pad;
    inner_stride = row;
    outer_stride = rows * inner_batch * row;
    return gpu::GemmOperandLayout{
        Shape(ElementType(type), {batch, rows, inner_batch, row}), transposed,
        inner_batch * row};
  };
  gpu::GemmBatchDim outer{batch}, inner{inner_batch};
  gpu::GemmOperandLayout lhs =
      transpose_lhs ? layout(k, m, true, outer.lhs_stride, inner.lhs_stride)
                    : layout(m, k, false, outer.lhs_stride, inner.lhs_stride);
  gpu::GemmOperandLayout rhs =
      transpose_rhs ? layout(n, k, true, outer.rhs_stride, inner.rhs_stride)
                    : layout(k, n, false, outer.rhs_stride, inner.rhs_stride);
  return gpu::GemmConfig::ForStrided(
      lhs, rhs, Shape(ElementType(out_type), {batch, inner_batch, m, n}),
      {outer, inner}, m, n, k, alpha, beta);
}

std::string GemmProblem::ToString() const {
  std::string out_type =
      output_type.has_value()
          ? absl::StrCat("->", se::blas::ToString(*output_type))
          : "";
  return absl::StrFormat(
      "%s%s batch=%dx%d m=%d n=%d k=%d pad=%d%s%s alpha=%g beta=%g",
      se::blas::ToString(type), out_type, batch, inner_batch, m, n, k, pad,
      transpose_lhs ? " lhs^T" : "", transpose_rhs ? " rhs^T" : "", alpha,
      beta);
}

GemmOperands RandomOperands(const gpu::GemmConfig& config, std::mt19937& rng) {
  GemmOperands operands;
  operands.lhs =
      RandomValues(config.type, config.lhs_shape.ElementCount(), rng);
  operands.rhs =
      RandomValues(config.type, config.rhs_shape.ElementCount(), rng);
  operands.out = RandomValues(config.output_type,
                              config.output_shape.ElementCount(), rng);
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
    // The batch's matrices, from the batch index split over the dimensions.
    int64_t lhs_start = 0, rhs_start = 0;
    for (int64_t d = config.batch_dims.size() - 1, rest = b; d >= 0; --d) {
      const gpu::GemmBatchDim& dim = config.batch_dims[d];
      lhs_start += rest % dim.size * dim.lhs_stride;
      rhs_start += rest % dim.size * dim.rhs_stride;
      rest /= dim.size;
    }
    const float* lhs = operands.lhs.data() + lhs_start;
    const float* rhs = operands.rhs.data() + rhs_start;
    const int64_t lda = config.lhs_ld, ldb = config.rhs_ld;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t p = 0; p < k; ++p) {
          double a = config.transpose_lhs ? lhs[p * lda + i] : lhs[i * lda + p];
          double r = config.transpose_rhs ? rhs[j * ldb + p] : rhs[p * ldb + j];
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
        if (IsBf16(config.output_type)) {
          tolerance += 2 * u_bf16 * std::abs(value);
        }
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
    const gpu::GemmConfig& config, const GemmOperands& operands,
    int64_t offset) {
  auto upload_at_offset = [&](se::blas::DataType type,
                              const std::vector<float>& values) {
    std::vector<float> padded(offset, 0.0f);
    padded.insert(padded.end(), values.begin(), values.end());
    return Upload(type, padded);
  };
  se::ScopedDeviceAddress lhs = upload_at_offset(config.type, operands.lhs);
  se::ScopedDeviceAddress rhs = upload_at_offset(config.type, operands.rhs);
  se::ScopedDeviceAddress out =
      upload_at_offset(config.output_type, operands.out);
  absl::StatusOr<std::unique_ptr<se::Kernel>> kernel =
      executor_->LoadKernel(spec);
  if (!kernel.ok()) return kernel.status();
  if (stream() == nullptr) return absl::InternalError("no stream");
  auto view = [offset](se::blas::DataType type,
                       const se::ScopedDeviceAddress& mem) {
    const uint64_t skip = offset * ToBytes(type, {0.0f}).size();
    return mem.cref().GetByteSlice(skip, mem.cref().size() - skip);
  };
  const se::DeviceAddressBase out_view = view(config.output_type, out);
  se::KernelArgs args(
      {view(config.type, lhs), view(config.type, rhs), out_view});
  absl::Status status = stream()->Launch(dims, **kernel, args);
  if (status.ok()) status = stream()->BlockHostUntilDone();
  if (!status.ok()) return status;
  std::vector<float> result = Download(config.output_type, out_view);
  result.resize(operands.out.size());
  return result;
}

namespace {

// `base` with each of the four transpose combinations, alpha and beta taken
// in turn from `scalars`.
void AddEveryTransposeCombination(
    GemmProblem base, absl::Span<const std::pair<float, float>> scalars,
    int& next_scalars, std::vector<GemmProblem>& problems) {
  for (int transposes = 0; transposes < 4; ++transposes) {
    base.transpose_lhs = transposes & 1;
    base.transpose_rhs = transposes & 2;
    std::tie(base.alpha, base.beta) =
        scalars[next_scalars++ % scalars.size()];
    problems.push_back(base);
  }
}

}  // namespace

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
    GemmProblem p;
    p.batch = size.batch, p.m = size.m, p.n = size.n, p.k = size.k;
    p.type = type;
    AddEveryTransposeCombination(p, scalars, next_scalars, problems);
  }
  return problems;
}

std::vector<GemmProblem> StridedProblems() {
  struct Layout {
    int64_t batch, inner_batch, m, n, k, pad;
    DataType type;
    std::optional<DataType> output_type;
  };
  const Layout layouts[] = {
      // Attention's bqhd x bkhd -> bhqk at a small size, and padded.
      {4, 2, 16, 16, 16, 0, DataType::kF32, std::nullopt},
      {2, 3, 17, 9, 13, 5, DataType::kF32, std::nullopt},
      // One batch dimension, padded rows only.
      {3, 1, 19, 23, 31, 2, DataType::kF32, std::nullopt},
      // bf16 operands, f32 output: dense, then strided.
      {1, 1, 33, 29, 40, 0, DataType::kBF16, DataType::kF32},
      {3, 1, 19, 23, 31, 0, DataType::kBF16, DataType::kF32},
      {2, 3, 17, 9, 13, 3, DataType::kBF16, DataType::kF32},
      {2, 2, 8, 12, 10, 1, DataType::kBF16, std::nullopt},
  };
  const std::pair<float, float> scalars[] = {
      {1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.5f}, {0.75f, 0.0f}};
  std::vector<GemmProblem> problems;
  int next_scalars = 0;
  for (const Layout& l : layouts) {
    GemmProblem p;
    p.batch = l.batch, p.m = l.m, p.n = l.n, p.k = l.k;
    p.inner_batch = l.inner_batch, p.pad = l.pad;
    p.type = l.type;
    p.output_type = l.output_type;
    AddEveryTransposeCombination(p, scalars, next_scalars, problems);
  }
  return problems;
}

}  // namespace xla_lite::testing
