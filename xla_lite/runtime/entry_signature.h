#ifndef XLA_LITE_RUNTIME_ENTRY_SIGNATURE_H_
#define XLA_LITE_RUNTIME_ENTRY_SIGNATURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "xla_lite/shape.h"

namespace xla_lite::gpu {

// HLO's input_output_alias: output `output_index` may live in (kMayAlias)
// or must live in (kMustAlias) the buffer of parameter `parameter_number`.
// Must-alias is what a caller asks for when it relies on the update
// happening in place, so such a parameter has to be donated.
struct InputOutputAlias {
  enum class Kind { kMayAlias, kMustAlias };

  int64_t output_index = 0;
  int64_t parameter_number = 0;
  Kind kind = Kind::kMayAlias;

  std::string ToString() const;
};

// What a caller of the entry computation sees: parameters in, a tuple of
// outputs back, and which outputs may reuse which parameters.
struct EntrySignature {
  std::vector<Shape> parameter_shapes;
  std::vector<Shape> output_shapes;
  std::vector<InputOutputAlias> aliases;

  // Null when the output or parameter takes part in no alias.
  const InputOutputAlias* AliasOfOutput(int64_t output_index) const;
  const InputOutputAlias* AliasOfParameter(int64_t parameter_number) const;
};

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_ENTRY_SIGNATURE_H_
