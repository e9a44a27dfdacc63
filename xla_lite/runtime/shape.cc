#include "xla_lite/runtime/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_lite::gpu {

int64_t ByteWidth(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
    case PrimitiveType::kU8:
      return 1;
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return 2;
    case PrimitiveType::kS32:
    case PrimitiveType::kF32:
      return 4;
    case PrimitiveType::kS64:
      return 8;
  }
  return 0;
}

const char* PrimitiveTypeName(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
      return "pred";
    case PrimitiveType::kU8:
      return "u8";
    case PrimitiveType::kS32:
      return "s32";
    case PrimitiveType::kS64:
      return "s64";
    case PrimitiveType::kF16:
      return "f16";
    case PrimitiveType::kBF16:
      return "bf16";
    case PrimitiveType::kF32:
      return "f32";
  }
  return "invalid";
}

int64_t Shape::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : dimensions_) count *= d;
  return count;
}

std::string Shape::ToString() const {
  return absl::StrCat(PrimitiveTypeName(element_type_), "[",
                      absl::StrJoin(dimensions_, ","), "]");
}

}  // namespace xla_lite::gpu
