#include "xla_lite/primitive_util.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_lite::primitive_util {
namespace {

enum class TypeClass { kPred, kSigned, kUnsigned, kFloat };

struct TypeInfo {
  PrimitiveType type;
  const char* name;
  int64_t width;
  TypeClass type_class;
  const char* npy_descr;
  const char* cuda_storage;
};

// One row per type, in enum order (checked by Info()).
constexpr TypeInfo kTypes[] = {
    {PrimitiveType::PRED, "pred", 1, TypeClass::kPred, "|b1", "unsigned char"},
    {PrimitiveType::S8, "s8", 1, TypeClass::kSigned, "|i1", "signed char"},
    {PrimitiveType::S16, "s16", 2, TypeClass::kSigned, "<i2", "short"},
    {PrimitiveType::S32, "s32", 4, TypeClass::kSigned, "<i4", "int"},
    {PrimitiveType::S64, "s64", 8, TypeClass::kSigned, "<i8", "long long"},
    {PrimitiveType::U8, "u8", 1, TypeClass::kUnsigned, "|u1", "unsigned char"},
    {PrimitiveType::U16, "u16", 2, TypeClass::kUnsigned, "<u2",
     "unsigned short"},
    {PrimitiveType::U32, "u32", 4, TypeClass::kUnsigned, "<u4",
     "unsigned int"},
    {PrimitiveType::U64, "u64", 8, TypeClass::kUnsigned, "<u8",
     "unsigned long long"},
    {PrimitiveType::F16, "f16", 2, TypeClass::kFloat, "<f2", "unsigned short"},
    {PrimitiveType::BF16, "bf16", 2, TypeClass::kFloat, "<u2",
     "unsigned short"},
    {PrimitiveType::F32, "f32", 4, TypeClass::kFloat, "<f4", "float"},
    {PrimitiveType::F64, "f64", 8, TypeClass::kFloat, "<f8", "double"},
};

constexpr bool RowsAreInEnumOrder() {
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    if (static_cast<size_t>(kTypes[i].type) != i) return false;
  }
  return true;
}
static_assert(RowsAreInEnumOrder(), "kTypes must follow PrimitiveType");
static_assert(sizeof(kTypes) / sizeof(kTypes[0]) ==
                  static_cast<size_t>(PrimitiveType::F64) + 1,
              "every PrimitiveType needs a row");

const TypeInfo& Info(PrimitiveType type) {
  return kTypes[static_cast<size_t>(type)];
}

}  // namespace

absl::Span<const PrimitiveType> AllPrimitiveTypes() {
  static const auto* const kAll = [] {
    auto* all = new std::vector<PrimitiveType>();
    for (const TypeInfo& info : kTypes) all->push_back(info.type);
    return all;
  }();
  return *kAll;
}

int64_t ByteWidth(PrimitiveType type) { return Info(type).width; }

bool IsFloatingPointType(PrimitiveType type) {
  return Info(type).type_class == TypeClass::kFloat;
}

bool IsSignedIntegralType(PrimitiveType type) {
  return Info(type).type_class == TypeClass::kSigned;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return Info(type).type_class == TypeClass::kUnsigned;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

absl::string_view LowercasePrimitiveTypeName(PrimitiveType type) {
  return Info(type).name;
}

absl::StatusOr<PrimitiveType> StringToPrimitiveType(absl::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (name == info.name) return info.type;
  }
  std::vector<std::string> names;
  for (const TypeInfo& info : kTypes) names.push_back(info.name);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "' (known: ",
                   absl::StrJoin(names, ", "), ")"));
}

absl::string_view NpyDescr(PrimitiveType type) { return Info(type).npy_descr; }

std::optional<PrimitiveType> PrimitiveTypeForNpyDescr(absl::string_view descr) {
  // The first row with the descriptor: U16 before BF16 for "<u2".
  for (const TypeInfo& info : kTypes) {
    if (descr == info.npy_descr) return info.type;
  }
  return std::nullopt;
}

absl::string_view CudaStorageTypeName(PrimitiveType type) {
  return Info(type).cuda_storage;
}

}  // namespace xla_lite::primitive_util
