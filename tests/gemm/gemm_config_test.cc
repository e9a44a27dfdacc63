// GemmConfig's strided form: what it accepts, and the BLAS calls it becomes
// when its batch dimensions do not merge into one.

#include <cstdint>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla_lite/runtime/gemm_config.h"

namespace xla_lite::testing {
namespace {

using gpu::GemmBatchDim;
using gpu::GemmConfig;
using gpu::GemmOperandLayout;
using se::blas::DataType;
using se::blas::Transpose;

Shape F32(std::vector<int64_t> dims) {
  return Shape(PrimitiveType::F32, std::move(dims));
}

// Attention's scores: q [b=4, s=16, h=2, d=8] x k of the same shape,
// contracting d, batch (b, h) -> [4, 2, 16, 16]. Each operand is a strided
// batch of 16x8 matrices with 16 elements per stored row, heads 8 apart
// and sequences 256 apart; k is read transposed.
absl::StatusOr<GemmConfig> AttentionScores() {
  return GemmConfig::ForStrided(
      GemmOperandLayout{F32({4, 16, 2, 8}), false, 16},
      GemmOperandLayout{F32({4, 16, 2, 8}), true, 16}, F32({4, 2, 16, 16}),
      {{4, 256, 256}, {2, 8, 8}}, 16, 16, 8, 1.0f, 0.0f);
}

TEST(GemmConfigTest, StridedAttentionScores) {
  absl::StatusOr<GemmConfig> config = AttentionScores();
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->batch, 8);
  EXPECT_FALSE(config->IsDense());
  // Batch 5 is (b=2, h=1).
  EXPECT_EQ(config->OperandOffsets(5),
            std::make_pair(int64_t{520}, int64_t{520}));
  EXPECT_TRUE(absl::StrContains(config->ToString(), "ld 16/16"))
      << config->ToString();
}

TEST(GemmConfigTest, BlasCallsWalkTheSmallerBatchDimension) {
  absl::StatusOr<GemmConfig> config = AttentionScores();
  ASSERT_TRUE(config.ok()) << config.status();
  std::vector<float> lhs(4 * 16 * 2 * 8), rhs(lhs.size()), out(4 * 2 * 16 * 16);
  auto address = [](std::vector<float>& v) {
    return se::DeviceAddressBase(v.data(), v.size() * sizeof(float));
  };
  std::vector<se::blas::GemmCall> calls =
      config->ToBlasCalls(address(lhs), address(rhs), address(out));
  // b (4) is the library's batch; one call per head.
  ASSERT_EQ(calls.size(), 2u);
  for (int64_t h = 0; h < 2; ++h) {
    const se::blas::GemmCall& call = calls[h];
    SCOPED_TRACE(call.ToString());
    EXPECT_TRUE(call.Validate().ok()) << call.Validate();
    EXPECT_EQ(call.batch_count, 4);
    // out^T = k^T-as-stored (A) times q^T (B), column-major.
    EXPECT_EQ(call.transa, Transpose::kTranspose);
    EXPECT_EQ(call.transb, Transpose::kNoTranspose);
    EXPECT_EQ(call.lda, 16);
    EXPECT_EQ(call.ldb, 16);
    EXPECT_EQ(call.ldc, 16);
    EXPECT_EQ(call.stride_a, 256);
    EXPECT_EQ(call.stride_b, 256);
    EXPECT_EQ(call.stride_c, 2 * 16 * 16);
    EXPECT_EQ(call.a.opaque(), rhs.data() + 8 * h);
    EXPECT_EQ(call.b.opaque(), lhs.data() + 8 * h);
    EXPECT_EQ(call.c.opaque(), out.data() + 16 * 16 * h);
  }
}

TEST(GemmConfigTest, DenseFormIsOneCall) {
  absl::StatusOr<GemmConfig> config = GemmConfig::For(
      F32({3, 5, 7}), false, F32({3, 4, 7}), true, F32({3, 5, 4}), 1, 0);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->IsDense());
  std::vector<float> lhs(3 * 5 * 7), rhs(3 * 4 * 7), out(3 * 5 * 4);
  std::vector<se::blas::GemmCall> calls = config->ToBlasCalls(
      se::DeviceAddressBase(lhs.data(), lhs.size() * 4),
      se::DeviceAddressBase(rhs.data(), rhs.size() * 4),
      se::DeviceAddressBase(out.data(), out.size() * 4));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].batch_count, 3);
  EXPECT_EQ(calls[0].stride_a, 28);
  EXPECT_EQ(calls[0].stride_b, 35);
  EXPECT_EQ(calls[0].stride_c, 20);
  EXPECT_TRUE(calls[0].Validate().ok()) << calls[0].Validate();
}

TEST(GemmConfigTest, Bf16OperandsMayHaveAnF32Output) {
  Shape bf16(PrimitiveType::BF16, {8, 4});
  absl::StatusOr<GemmConfig> config = GemmConfig::For(
      bf16, false, Shape(PrimitiveType::BF16, {4, 6}), false,
      F32({8, 6}), 1, 0);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->type, DataType::kBF16);
  EXPECT_EQ(config->output_type, DataType::kF32);
  std::vector<uint16_t> a(32), b(24);
  std::vector<float> c(48);
  std::vector<se::blas::GemmCall> calls = config->ToBlasCalls(
      se::DeviceAddressBase(a.data(), 64), se::DeviceAddressBase(b.data(), 48),
      se::DeviceAddressBase(c.data(), 192));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].CType(), DataType::kF32);
  EXPECT_TRUE(calls[0].Validate().ok()) << calls[0].Validate();
  // f32 operands cannot produce bf16.
  EXPECT_FALSE(GemmConfig::For(F32({8, 4}), false, F32({4, 6}), false,
                               Shape(PrimitiveType::BF16, {8, 6}), 1, 0)
                   .ok());
}

TEST(GemmConfigTest, RejectsReadsOutsideTheBuffers) {
  // The last batch's last row would end at element 4 * 256 - 256 + 15 * 16
  // + 8 + 8 = 1024: one past a [4, 16, 2, 8] buffer.
  auto status = GemmConfig::ForStrided(
                    GemmOperandLayout{F32({4, 16, 2, 8}), false, 16},
                    GemmOperandLayout{F32({4, 16, 2, 8}), true, 16},
                    F32({4, 2, 16, 16}), {{4, 256, 256}, {2, 9, 8}}, 16, 16,
                    8, 1.0f, 0.0f)
                    .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "lhs: element 1024"))
      << status;
  // A leading dimension shorter than a stored row.
  status = GemmConfig::ForStrided(GemmOperandLayout{F32({16, 8}), false, 7},
                                  GemmOperandLayout{F32({8, 4}), false, 4},
                                  F32({16, 4}), {}, 16, 4, 8, 1.0f, 0.0f)
               .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "leading dimension 7"))
      << status;
  // An output that is not batch * m * n elements.
  status = GemmConfig::ForStrided(GemmOperandLayout{F32({16, 8}), false, 8},
                                  GemmOperandLayout{F32({8, 4}), false, 4},
                                  F32({16, 5}), {}, 16, 4, 8, 1.0f, 0.0f)
               .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xla_lite::testing
