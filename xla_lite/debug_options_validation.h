#ifndef XLA_LITE_DEBUG_OPTIONS_VALIDATION_H_
#define XLA_LITE_DEBUG_OPTIONS_VALIDATION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla_lite/debug_options.pb.h"

namespace xla_lite {

// INVALID_ARGUMENT naming the flag when a numeric field is out of its range
// (a negative size or count, ...). ParseFlagsIntoDebugOptions and
// LoadDebugOptionsPreset check their result with it, so every way options
// arrive is checked in this one place.
absl::Status ValidateDebugOptions(const DebugOptions& options);

// The fields ValidateDebugOptions checks (a test asserts every numeric
// field is among them).
std::vector<std::string> RangeCheckedDebugOptionsFields();

}  // namespace xla_lite

#endif  // XLA_LITE_DEBUG_OPTIONS_VALIDATION_H_
