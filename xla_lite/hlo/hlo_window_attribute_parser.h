#ifndef XLA_LITE_HLO_HLO_WINDOW_ATTRIBUTE_PARSER_H_
#define XLA_LITE_HLO_HLO_WINDOW_ATTRIBUTE_PARSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_instruction.h"
#include "xla_lite/hlo/hlo_token_cursor.h"

namespace xla_lite {

// The value (after "key=") of window=, dim_labels=, feature_group_count=
// and batch_group_count= for the opcodes that have them, into `instr`;
// false when `key` is none of these. Their values are not single tokens
// ("3x3" lexes as 3 and x3, "01bf" as 01 and bf), so they are read back
// as the text of adjacent tokens; errors point at the value.
absl::StatusOr<bool> ParseWindowAttribute(TokenCursor& cursor,
                                          const std::string& key,
                                          HloInstruction* instr);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_WINDOW_ATTRIBUTE_PARSER_H_
