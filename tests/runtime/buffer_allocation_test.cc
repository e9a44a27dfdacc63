// BufferAllocation, slices, BufferAllocations, shapes and the validation
// that GpuExecutable::Create applies: pure bookkeeping, no device needed.

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/buffer_allocations.h"
#include "xla_lite/runtime/executable_validation.h"
#include "xla_lite/runtime/memcpy_thunk.h"
#include "xla_lite/runtime/memset_thunk.h"
#include "xla_lite/shape.h"

namespace xla_lite::gpu {
namespace {

using Slice = BufferAllocation::Slice;

TEST(ShapeTest, SizesAndNames) {
  EXPECT_EQ(Shape(PrimitiveType::F32, {16, 8}).ByteSize(), 512);
  EXPECT_EQ(Shape(PrimitiveType::BF16, {3, 5}).ByteSize(), 30);
  EXPECT_EQ(Shape(PrimitiveType::PRED, {7}).ByteSize(), 7);
  EXPECT_EQ(Shape(PrimitiveType::S64, {}).ByteSize(), 8);  // A scalar.
  EXPECT_EQ(Shape(PrimitiveType::F16, {0, 4}).ByteSize(), 0);
  EXPECT_EQ(Shape(PrimitiveType::F32, {16, 8}).ToString(), "f32[16,8]");
  EXPECT_EQ(Shape(PrimitiveType::S32, {}).ToString(), "s32[]");
}

TEST(BufferAllocationTest, KindsCarryTheirData) {
  BufferAllocation param = BufferAllocation::Parameter(0, 64, 3);
  EXPECT_TRUE(param.is_entry_parameter());
  EXPECT_EQ(param.parameter_number(), 3);
  EXPECT_FALSE(param.maybe_live_out());

  BufferAllocation constant = BufferAllocation::Constant(1, {1, 2, 3});
  EXPECT_TRUE(constant.is_constant());
  EXPECT_EQ(constant.size(), 3);
  EXPECT_EQ(std::vector<uint8_t>(constant.constant_bytes().begin(),
                                 constant.constant_bytes().end()),
            std::vector<uint8_t>({1, 2, 3}));

  EXPECT_TRUE(BufferAllocation::Temp(2, 8).is_temp());
  EXPECT_TRUE(BufferAllocation::Output(3, 8).maybe_live_out());
  EXPECT_GE(BufferAllocation::Temp(2, 8).alignment(),
            BufferAllocation::kParameterAlignment);
}

TEST(BufferAllocationTest, SliceOverlap) {
  BufferAllocation a = BufferAllocation::Temp(0, 100);
  BufferAllocation b = BufferAllocation::Temp(1, 100);
  Slice a0_50 = a.GetSlice(0, 50), a40_60 = a.GetSlice(40, 20),
        a50_100 = a.GetSlice(50, 50), a_empty = a.GetSlice(10, 0);
  EXPECT_TRUE(a0_50.OverlapsWith(a40_60));
  EXPECT_TRUE(a40_60.OverlapsWith(a0_50));
  EXPECT_TRUE(a40_60.OverlapsWith(a50_100));
  EXPECT_FALSE(a0_50.OverlapsWith(a50_100));  // Adjacent, not overlapping.
  EXPECT_FALSE(a_empty.OverlapsWith(a0_50));
  EXPECT_FALSE(a0_50.OverlapsWith(b.GetSlice(0, 50)));
  EXPECT_TRUE(a.GetSlice().OverlapsWith(a0_50));
  EXPECT_EQ(a.GetSlice(40, 20), a40_60);
  EXPECT_NE(a.GetSlice(40, 20), b.GetSlice(40, 20));
}

TEST(BufferAllocationDeathTest, SliceOutsideAllocationIsAProgrammerError) {
  BufferAllocation a = BufferAllocation::Temp(0, 16);
  EXPECT_DEATH(a.GetSlice(8, 16), "outside");
}

TEST(BufferAllocationsTest, SliceAddressesAreOffsetIntoTheirAllocation) {
  std::vector<char> storage(256);
  BufferAllocation a = BufferAllocation::Temp(0, 128);
  BufferAllocation b = BufferAllocation::Temp(1, 128);
  BufferAllocations buffers({se::DeviceAddressBase(storage.data(), 128),
                             se::DeviceAddressBase(storage.data() + 128, 128)},
                            /*device_ordinal=*/0);
  EXPECT_EQ(buffers.GetDeviceAddress(1).opaque(), storage.data() + 128);
  se::DeviceAddressBase slice = buffers.GetDeviceAddress(b.GetSlice(16, 32));
  EXPECT_EQ(slice.opaque(), storage.data() + 144);
  EXPECT_EQ(slice.size(), 32);
  EXPECT_EQ(buffers.GetDeviceAddress(a.GetSlice()).size(), 128);
}

// A small but complete assignment: p0 (aliased to output 0), p1, a
// constant, a temp and output 1.
class ValidationTest : public ::testing::Test {
 protected:
  ValidationTest() {
    signature_.parameter_shapes = {Shape(PrimitiveType::F32, {4}),
                                   Shape(PrimitiveType::F32, {4})};
    signature_.output_shapes = {Shape(PrimitiveType::F32, {4}),
                                Shape(PrimitiveType::F32, {4})};
    signature_.aliases = {{0, 0, InputOutputAlias::Kind::kMayAlias}};
    allocations_ = {BufferAllocation::Parameter(0, 16, 0),
                    BufferAllocation::Parameter(1, 16, 1),
                    BufferAllocation::Constant(2, std::vector<uint8_t>(16)),
                    BufferAllocation::Temp(3, 16),
                    BufferAllocation::Output(4, 16)};
    outputs_ = {0, 4};
  }

  absl::Status Validate(const BufferUses& uses = {}) {
    return ValidateExecutable(signature_, allocations_, outputs_, uses);
  }
  Slice S(int index) { return allocations_[index].GetSlice(); }

  EntrySignature signature_;
  std::vector<BufferAllocation> allocations_;
  std::vector<BufferAllocation::Index> outputs_;
};

TEST_F(ValidationTest, ConsistentExecutableIsAccepted) {
  EXPECT_TRUE(Validate({BufferUse::Read(S(1)), BufferUse::Read(S(2)),
                        BufferUse::Write(S(3)), BufferUse::Write(S(0)),
                        BufferUse::Write(S(4))})
                  .ok());
}

TEST_F(ValidationTest, WritingAConstantIsRejected) {
  absl::Status status = Validate({BufferUse::Write(S(2))});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("constant"), std::string::npos) << status;
}

TEST_F(ValidationTest, WritingAnUnaliasedParameterIsRejected) {
  absl::Status status = Validate({BufferUse::Write(S(1))});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("parameter 1"), std::string::npos) << status;
}

TEST_F(ValidationTest, SliceBeyondItsAllocationIsRejected) {
  BufferAllocation big = BufferAllocation::Temp(3, 64);
  EXPECT_EQ(Validate({BufferUse::Read(big.GetSlice(32, 32))}).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(ValidationTest, OutputOfTheWrongSizeIsRejected) {
  signature_.output_shapes[1] = Shape(PrimitiveType::F32, {8});
  absl::Status status = Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("output 1"), std::string::npos) << status;
}

TEST_F(ValidationTest, OutputInAParameterNeedsAnAlias) {
  signature_.aliases.clear();
  EXPECT_EQ(Validate().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(ValidationTest, ParameterWithoutAllocationIsRejected) {
  signature_.parameter_shapes.push_back(Shape(PrimitiveType::F32, {4}));
  absl::Status status = Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("parameter 2"), std::string::npos) << status;
}

TEST_F(ValidationTest, DuplicateAliasIsRejected) {
  signature_.aliases.push_back({1, 0, InputOutputAlias::Kind::kMayAlias});
  EXPECT_EQ(Validate().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ThunkKindTest, KindsMapOntoCommandBufferTypes) {
  EXPECT_EQ(CommandBufferCmdTypeOf(Thunk::Kind::kKernel), DebugOptions::FUSION);
  EXPECT_EQ(CommandBufferCmdTypeOf(Thunk::Kind::kGemm), DebugOptions::CUBLAS);
  EXPECT_EQ(CommandBufferCmdTypeOf(Thunk::Kind::kMemcpy), DebugOptions::MEMCPY);
  EXPECT_EQ(CommandBufferCmdTypeOf(Thunk::Kind::kMemset), DebugOptions::MEMSET);
  EXPECT_FALSE(CommandBufferCmdTypeOf(Thunk::Kind::kSequential).has_value());
}

TEST(ThunkTest, BufferUsesSayWhatIsReadAndWritten) {
  BufferAllocation a = BufferAllocation::Temp(0, 64);
  BufferAllocation b = BufferAllocation::Temp(1, 64);
  MemcpyThunk copy("copy", a.GetSlice(0, 32), b.GetSlice(32, 32));
  BufferUses uses = copy.buffer_uses();
  ASSERT_EQ(uses.size(), 2);
  EXPECT_EQ(uses[0].slice, a.GetSlice(0, 32));
  EXPECT_EQ(uses[0].access, BufferUse::Access::kRead);
  EXPECT_EQ(uses[1].slice, b.GetSlice(32, 32));
  EXPECT_EQ(uses[1].access, BufferUse::Access::kWrite);

  MemsetThunk zero("zero", b.GetSlice(), uint8_t{0});
  ASSERT_EQ(zero.buffer_uses().size(), 1);
  EXPECT_EQ(zero.buffer_uses()[0].access, BufferUse::Access::kWrite);
}

}  // namespace
}  // namespace xla_lite::gpu
