#include "xla_lite/runtime/executable_validation.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"

namespace xla_lite::gpu {
namespace {

using Index = BufferAllocation::Index;

absl::Status CheckParameters(const EntrySignature& signature,
                             absl::Span<const BufferAllocation> allocations) {
  int64_t count = signature.parameter_shapes.size();
  std::vector<int> seen(count, 0);
  for (const BufferAllocation& allocation : allocations) {
    if (!allocation.is_entry_parameter()) continue;
    int64_t p = allocation.parameter_number();
    if (p >= count) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: the signature has %d parameters", allocation.ToString(), count));
    }
    const Shape& shape = signature.parameter_shapes[p];
    if (allocation.size() != shape.ByteSize()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s does not hold parameter %d of shape %s (%d bytes)",
          allocation.ToString(), p, shape.ToString(), shape.ByteSize()));
    }
    ++seen[p];
  }
  for (int64_t p = 0; p < count; ++p) {
    if (seen[p] != 1) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "parameter %d has %d allocations; it needs exactly one", p, seen[p]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAliases(const EntrySignature& signature) {
  absl::flat_hash_set<int64_t> outputs, parameters;
  for (const InputOutputAlias& alias : signature.aliases) {
    if (alias.output_index < 0 ||
        alias.output_index >= signature.output_shapes.size() ||
        alias.parameter_number < 0 ||
        alias.parameter_number >= signature.parameter_shapes.size()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("alias %s is out of range", alias.ToString()));
    }
    if (!outputs.insert(alias.output_index).second ||
        !parameters.insert(alias.parameter_number).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "alias %s reuses an output or parameter of another alias",
          alias.ToString()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOutput(const EntrySignature& signature,
                         absl::Span<const BufferAllocation> allocations,
                         int64_t i, Index index) {
  if (index < 0 || index >= allocations.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("output %d names missing allocation %d", i, index));
  }
  const BufferAllocation& allocation = allocations[index];
  const Shape& shape = signature.output_shapes[i];
  if (allocation.size() != shape.ByteSize()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "output %d of shape %s (%d bytes) is in %s", i, shape.ToString(),
        shape.ByteSize(), allocation.ToString()));
  }
  const InputOutputAlias* alias = signature.AliasOfOutput(i);
  if (allocation.kind() == BufferAllocation::Kind::kOutput && alias == nullptr) {
    return absl::OkStatus();
  }
  if (allocation.is_entry_parameter() && alias != nullptr &&
      alias->parameter_number == allocation.parameter_number()) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "output %d is in %s, which is neither an output allocation nor the "
      "parameter it aliases",
      i, allocation.ToString()));
}

absl::Status CheckOutputs(const EntrySignature& signature,
                          absl::Span<const BufferAllocation> allocations,
                          absl::Span<const Index> output_allocations) {
  if (output_allocations.size() != signature.output_shapes.size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%d output allocations for %d outputs", output_allocations.size(),
        signature.output_shapes.size()));
  }
  absl::flat_hash_set<Index> used;
  for (int64_t i = 0; i < output_allocations.size(); ++i) {
    RETURN_IF_ERROR(
        CheckOutput(signature, allocations, i, output_allocations[i]));
    if (!used.insert(output_allocations[i]).second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "output %d shares allocation %d with another output", i,
          output_allocations[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckUse(const EntrySignature& signature,
                      absl::Span<const BufferAllocation> allocations,
                      const BufferUse& use) {
  const BufferAllocation::Slice& slice = use.slice;
  if (slice.index() < 0 || slice.index() >= allocations.size() ||
      slice.offset() < 0 || slice.size() < 0 ||
      slice.offset() + slice.size() > allocations[slice.index()].size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "slice %s lies outside the allocations", slice.ToString()));
  }
  if (use.access == BufferUse::Access::kRead) return absl::OkStatus();
  const BufferAllocation& allocation = allocations[slice.index()];
  if (allocation.is_constant()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a thunk writes %s of %s", slice.ToString(), allocation.ToString()));
  }
  if (allocation.is_entry_parameter() &&
      signature.AliasOfParameter(allocation.parameter_number()) == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a thunk writes %s of %s, which aliases no output", slice.ToString(),
        allocation.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateExecutable(
    const EntrySignature& signature,
    absl::Span<const BufferAllocation> allocations,
    absl::Span<const BufferAllocation::Index> output_allocations,
    const BufferUses& uses) {
  for (int64_t i = 0; i < allocations.size(); ++i) {
    if (allocations[i].index() != i) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "allocation at position %d has index %d", i, allocations[i].index()));
    }
  }
  RETURN_IF_ERROR(CheckParameters(signature, allocations));
  RETURN_IF_ERROR(CheckAliases(signature));
  RETURN_IF_ERROR(CheckOutputs(signature, allocations, output_allocations));
  for (const BufferUse& use : uses) {
    RETURN_IF_ERROR(CheckUse(signature, allocations, use));
  }
  return absl::OkStatus();
}

}  // namespace xla_lite::gpu
