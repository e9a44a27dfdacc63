#ifndef XLA_LITE_SERVICE_HLO_REWRITE_UTIL_H_
#define XLA_LITE_SERVICE_HLO_REWRITE_UTIL_H_

// Small building blocks shared by the HLO passes: making instructions,
// copying one with new operands, and unique names for what a pass adds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Hands out names no instruction of the module has yet, so that logs and
// kernel names stay unambiguous after passes add instructions.
class NameUniquer {
 public:
  explicit NameUniquer(const HloModule& module);
  // `base` itself when free, else `base.1`, `base.2`, ...
  std::string Get(const std::string& base);

 private:
  absl::flat_hash_set<std::string> used_;
};

// Adds an instruction with these operands to `computation`.
HloInstruction* AddInstruction(HloComputation* computation, HloOpcode opcode,
                               Shape shape,
                               absl::Span<HloInstruction* const> operands,
                               std::string name);

// A copy of `source` (opcode, shape and every attribute) over `operands`,
// added to `computation`.
HloInstruction* CloneInstruction(HloComputation* computation,
                                 const HloInstruction& source,
                                 absl::Span<HloInstruction* const> operands,
                                 std::string name);

// Convenience constructors for the shapes-and-attributes passes build.
HloInstruction* AddReshape(HloComputation* computation, HloInstruction* operand,
                           std::vector<int64_t> dimensions, std::string name);
// Output dimension i is operand dimension permutation[i].
HloInstruction* AddTranspose(HloComputation* computation,
                             HloInstruction* operand,
                             std::vector<int64_t> permutation,
                             std::string name);
HloInstruction* AddBroadcast(HloComputation* computation,
                             HloInstruction* operand, const Shape& shape,
                             std::vector<int64_t> dimensions,
                             std::string name);

// Follows reshapes (and bitcasts that are reshapes) down to the value whose
// row-major bytes they reinterpret.
const HloInstruction* StripReshapes(const HloInstruction* instruction);
HloInstruction* StripReshapes(HloInstruction* instruction);

// The binary opcode a reduce's computation applies to its two parameters
// (add, multiply, maximum, minimum, and, or), or nullopt when it is
// anything else.
std::optional<HloOpcode> MatchReducer(const HloComputation* computation);

// The computations that run as programs of their own: the entry, then the
// conditions, bodies and branches of its whiles and conditionals, and
// theirs, each once (reducers and combiners, which kernels inline, are not
// among them). Passes that rewrite what the compiler lowers run over these.
std::vector<HloComputation*> ExecutedComputations(const HloModule& module);

// Whether `permutation` is the identity.
bool IsIdentityPermutation(absl::Span<const int64_t> permutation);

}  // namespace xla_lite

#endif  // XLA_LITE_SERVICE_HLO_REWRITE_UTIL_H_
