#include "xla_lite/hlo/hlo_opcode.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace xla_lite {

absl::string_view HloOpcodeString(HloOpcode opcode) {
  switch (opcode) {
#define XLA_LITE_OPCODE_CASE(enum_name, text) \
  case HloOpcode::enum_name:                  \
    return text;
    XLA_LITE_HLO_OPCODE_LIST(XLA_LITE_OPCODE_CASE)
#undef XLA_LITE_OPCODE_CASE
  }
  return "<invalid opcode>";
}

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view text) {
  static const auto* const kByName = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
#define XLA_LITE_OPCODE_ENTRY(enum_name, text) \
  map->emplace(text, HloOpcode::enum_name);
    XLA_LITE_HLO_OPCODE_LIST(XLA_LITE_OPCODE_ENTRY)
#undef XLA_LITE_OPCODE_ENTRY
    return map;
  }();
  auto it = kByName->find(text);
  if (it == kByName->end()) {
    return absl::NotFoundError(absl::StrCat("unknown opcode '", text, "'"));
  }
  return it->second;
}

bool IsElementwiseUnary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAbs:
    case HloOpcode::kCeil:
    case HloOpcode::kCopy:
    case HloOpcode::kCos:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kFloor:
    case HloOpcode::kIsFinite:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSign:
    case HloOpcode::kSin:
    case HloOpcode::kSqrt:
    case HloOpcode::kTanh:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kAnd:
    case HloOpcode::kDivide:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
    case HloOpcode::kOr:
    case HloOpcode::kPower:
    case HloOpcode::kRemainder:
    case HloOpcode::kSubtract:
    case HloOpcode::kXor:
      return true;
    default:
      return false;
  }
}

bool IsCollective(HloOpcode opcode) {
  return opcode == HloOpcode::kAllReduce || opcode == HloOpcode::kAllGather ||
         opcode == HloOpcode::kReduceScatter ||
         opcode == HloOpcode::kCollectivePermute;
}

bool IsElementwise(HloOpcode opcode) {
  return IsElementwiseUnary(opcode) || IsElementwiseBinary(opcode) ||
         opcode == HloOpcode::kCompare || opcode == HloOpcode::kSelect ||
         opcode == HloOpcode::kClamp || opcode == HloOpcode::kConvert;
}

}  // namespace xla_lite
