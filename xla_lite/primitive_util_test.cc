#include "xla_lite/primitive_util.h"

#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla_lite {
namespace {

using primitive_util::AllPrimitiveTypes;

TEST(PrimitiveUtilTest, NamesRoundTripAndUnknownNamesAreRefused) {
  EXPECT_EQ(AllPrimitiveTypes().size(), 13);
  for (PrimitiveType type : AllPrimitiveTypes()) {
    absl::string_view name = primitive_util::LowercasePrimitiveTypeName(type);
    auto parsed = primitive_util::StringToPrimitiveType(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, type) << name;
  }
  EXPECT_EQ(primitive_util::LowercasePrimitiveTypeName(PrimitiveType::BF16),
            "bf16");
  auto unknown = primitive_util::StringToPrimitiveType("c64");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "c64"));
  EXPECT_TRUE(absl::StrContains(unknown.status().message(), "bf16"));
  EXPECT_FALSE(primitive_util::StringToPrimitiveType("F32").ok());
}

TEST(PrimitiveUtilTest, WidthsAndClasses) {
  struct Expected {
    PrimitiveType type;
    int64_t width;
    bool floating, is_signed, is_unsigned;
  };
  for (const Expected& e : {
           Expected{PrimitiveType::PRED, 1, false, false, false},
           Expected{PrimitiveType::S8, 1, false, true, false},
           Expected{PrimitiveType::S16, 2, false, true, false},
           Expected{PrimitiveType::S32, 4, false, true, false},
           Expected{PrimitiveType::S64, 8, false, true, false},
           Expected{PrimitiveType::U8, 1, false, false, true},
           Expected{PrimitiveType::U16, 2, false, false, true},
           Expected{PrimitiveType::U32, 4, false, false, true},
           Expected{PrimitiveType::U64, 8, false, false, true},
           Expected{PrimitiveType::F16, 2, true, false, false},
           Expected{PrimitiveType::BF16, 2, true, false, false},
           Expected{PrimitiveType::F32, 4, true, false, false},
           Expected{PrimitiveType::F64, 8, true, false, false},
       }) {
    SCOPED_TRACE(primitive_util::LowercasePrimitiveTypeName(e.type));
    EXPECT_EQ(primitive_util::ByteWidth(e.type), e.width);
    EXPECT_EQ(primitive_util::IsFloatingPointType(e.type), e.floating);
    EXPECT_EQ(primitive_util::IsSignedIntegralType(e.type), e.is_signed);
    EXPECT_EQ(primitive_util::IsUnsignedIntegralType(e.type), e.is_unsigned);
    EXPECT_EQ(primitive_util::IsIntegralType(e.type),
              e.is_signed || e.is_unsigned);
  }
}

TEST(PrimitiveUtilTest, NpyDescriptors) {
  EXPECT_EQ(primitive_util::NpyDescr(PrimitiveType::F32), "<f4");
  EXPECT_EQ(primitive_util::NpyDescr(PrimitiveType::PRED), "|b1");
  EXPECT_EQ(primitive_util::NpyDescr(PrimitiveType::BF16), "<u2");
  for (PrimitiveType type : AllPrimitiveTypes()) {
    auto back =
        primitive_util::PrimitiveTypeForNpyDescr(primitive_util::NpyDescr(type));
    ASSERT_TRUE(back.has_value());
    // bf16's bits read back as u16 unless the reader expects bf16.
    EXPECT_EQ(*back, type == PrimitiveType::BF16 ? PrimitiveType::U16 : type);
  }
  EXPECT_FALSE(primitive_util::PrimitiveTypeForNpyDescr(">f4").has_value());
}

TEST(PrimitiveUtilTest, CudaStorageTypesHaveTheElementWidth) {
  EXPECT_EQ(primitive_util::CudaStorageTypeName(PrimitiveType::F32), "float");
  EXPECT_EQ(primitive_util::CudaStorageTypeName(PrimitiveType::BF16),
            "unsigned short");
  EXPECT_EQ(primitive_util::CudaStorageTypeName(PrimitiveType::PRED),
            "unsigned char");
  for (PrimitiveType type : AllPrimitiveTypes()) {
    absl::string_view name = primitive_util::CudaStorageTypeName(type);
    int64_t width = primitive_util::ByteWidth(type);
    if (absl::StrContains(name, "char")) {
      EXPECT_EQ(width, 1) << name;
    }
    if (absl::StrContains(name, "short")) {
      EXPECT_EQ(width, 2) << name;
    }
    if (name == "int" || name == "unsigned int" || name == "float") {
      EXPECT_EQ(width, 4) << name;
    }
    if (absl::StrContains(name, "long long") || name == "double") {
      EXPECT_EQ(width, 8) << name;
    }
  }
}

}  // namespace
}  // namespace xla_lite
