#include "xla_lite/service/gemm_accumulation.h"

#include <utility>
#include <vector>

#include "xla_lite/service/hlo_rewrite_util.h"

namespace xla_lite::gpu {
namespace {

bool IsF32(const HloInstruction& instr) {
  return instr.shape().IsArray() &&
         instr.shape().element_type() == PrimitiveType::F32;
}

bool HasOneUser(const HloInstruction& instr) {
  return instr.users().size() == 1;
}

// The f32 scalar a broadcast of a constant holds everywhere.
std::optional<float> BroadcastScalar(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kBroadcast) return std::nullopt;
  const HloInstruction& scalar = *StripReshapes(instr.operand(0));
  if (scalar.opcode() != HloOpcode::kConstant || !IsF32(scalar) ||
      scalar.shape().ElementCount() != 1) {
    return std::nullopt;
  }
  return static_cast<float>(scalar.literal().GetAsDouble(0));
}

// `term` as scale * dot, each op used once.
std::optional<GemmAccumulation> MatchScaledDot(const HloInstruction& term) {
  if (!IsF32(term) || !HasOneUser(term)) return std::nullopt;
  GemmAccumulation match;
  const HloInstruction* product = &term;
  if (term.opcode() == HloOpcode::kMultiply) {
    for (int side = 0; side < 2; ++side) {
      std::optional<float> scale = BroadcastScalar(*term.operand(side));
      if (!scale.has_value()) continue;
      match.alpha = *scale;
      product = term.operand(1 - side);
      break;
    }
    if (product == &term || !HasOneUser(*product)) return std::nullopt;
  }
  if (product->opcode() != HloOpcode::kDot || !IsF32(*product)) {
    return std::nullopt;
  }
  match.dot = product;
  return match;
}

}  // namespace

std::optional<GemmAccumulation> MatchGemmAccumulation(
    const HloInstruction& value) {
  if (!IsF32(value)) return std::nullopt;
  // (addend operand, term operand, sign) candidates.
  std::vector<std::pair<int, float>> terms;
  if (value.opcode() == HloOpcode::kSubtract) {
    terms.push_back({1, -1.0f});
  } else if (value.opcode() == HloOpcode::kAdd) {
    terms.push_back({1, 1.0f});
    terms.push_back({0, 1.0f});
  } else {
    return std::nullopt;
  }
  for (const auto& [term_operand, sign] : terms) {
    const HloInstruction& addend = *value.operand(1 - term_operand);
    if (!IsF32(addend) || addend.shape() != value.shape()) continue;
    std::optional<GemmAccumulation> match =
        MatchScaledDot(*value.operand(term_operand));
    if (!match.has_value()) continue;
    match->addend = &addend;
    match->alpha *= sign;
    return match;
  }
  return std::nullopt;
}

}  // namespace xla_lite::gpu
