// libFuzzer target: the XLA_FLAGS parser. Every string is options or an
// error, an error leaves the options untouched, and accepted options
// printed as flags parse back to the same options.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "xla_lite/debug_options_flags.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view flags(reinterpret_cast<const char*>(data), size);
  const xla_lite::DebugOptions defaults = xla_lite::DefaultDebugOptions();
  xla_lite::DebugOptions options = defaults;
  if (!xla_lite::ParseFlagsIntoDebugOptions(flags, &options).ok()) {
    if (options.SerializeAsString() != defaults.SerializeAsString()) {
      std::abort();  // a failed parse changed the options
    }
    return 0;
  }
  if (!xla_lite::ValidateDebugOptions(options).ok()) std::abort();
  const std::string printed = xla_lite::DebugOptionsToFlags(options);
  xla_lite::DebugOptions reparsed = defaults;
  if (!xla_lite::ParseFlagsIntoDebugOptions(printed, &reparsed).ok() ||
      reparsed.SerializeAsString() != options.SerializeAsString()) {
    std::abort();  // DebugOptionsToFlags does not round-trip
  }
  return 0;
}
