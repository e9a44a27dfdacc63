#ifndef XLA_LITE_HLO_HLO_PARSER_H_
#define XLA_LITE_HLO_HLO_PARSER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_lite/hlo/hlo_module.h"

namespace xla_lite {

// Parses HLO text as JAX writes it (lower(...).as_text(dialect="hlo")):
// the HloModule header with input_output_alias and
// entry_computation_layout, computations (the ENTRY one, or else the last),
// instructions with their attributes. Attributes that do not change what is
// computed (metadata, sharding, frontend_attributes, ...) are skipped.
// INVALID_ARGUMENT on malformed text, as
//   "<source_name>:<line>:<column>: expected <what>, got '<token>'".
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(
    absl::string_view text, absl::string_view source_name = "<hlo text>");

// Reads and parses a file; read errors as base/file_util.h says (NOT_FOUND
// for a missing path, INVALID_ARGUMENT for a folder, ...).
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleFile(
    const std::string& path);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_HLO_PARSER_H_
