#include "xla_lite/runtime/entry_signature.h"

#include "absl/strings/str_format.h"

namespace xla_lite::gpu {

std::string InputOutputAlias::ToString() const {
  return absl::StrFormat("output %d %s parameter %d", output_index,
                         kind == Kind::kMustAlias ? "must alias" : "may alias",
                         parameter_number);
}

const InputOutputAlias* EntrySignature::AliasOfOutput(
    int64_t output_index) const {
  for (const InputOutputAlias& alias : aliases) {
    if (alias.output_index == output_index) return &alias;
  }
  return nullptr;
}

const InputOutputAlias* EntrySignature::AliasOfParameter(
    int64_t parameter_number) const {
  for (const InputOutputAlias& alias : aliases) {
    if (alias.parameter_number == parameter_number) return &alias;
  }
  return nullptr;
}

}  // namespace xla_lite::gpu
