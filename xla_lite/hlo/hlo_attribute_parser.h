#ifndef XLA_LITE_HLO_HLO_ATTRIBUTE_PARSER_H_
#define XLA_LITE_HLO_HLO_ATTRIBUTE_PARSER_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_lexer.h"
#include "xla_lite/hlo/hlo_token_cursor.h"

namespace xla_lite {

// Parses the ", key=value" attributes that follow an instruction's operand
// list, up to the end of its line, into `instr`. Each key may appear once;
// the attributes an opcode cannot do without (compare's direction, gather's
// dimension numbers, ...) must appear, else the error points at
// `name_token`, the instruction's name. to_apply= and calls= name
// computations of `computations` (those defined above). Attributes that do
// not change the values computed (metadata, sharding, ...) are skipped.
absl::Status ParseInstructionAttributes(
    TokenCursor& cursor,
    const absl::flat_hash_map<std::string, HloComputation*>& computations,
    const Token& name_token, HloInstruction* instr);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_ATTRIBUTE_PARSER_H_
