#ifndef XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTE_PARSER_H_
#define XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTE_PARSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_token_cursor.h"

namespace xla_lite {

// The value of attribute `key` (the cursor is just after its '=') when it
// is one of a collective's (replica_groups, channel_id,
// use_global_device_ids, source_target_pairs) or a custom-call's
// (custom_call_target, frontend_attributes): parsed into `instr`, true.
// False, nothing consumed, for any other key or opcode.
absl::StatusOr<bool> ParseCollectiveAttribute(TokenCursor& cursor,
                                              const std::string& key,
                                              HloInstruction* instr);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_COLLECTIVE_ATTRIBUTE_PARSER_H_
