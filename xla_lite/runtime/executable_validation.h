#ifndef XLA_LITE_RUNTIME_EXECUTABLE_VALIDATION_H_
#define XLA_LITE_RUNTIME_EXECUTABLE_VALIDATION_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/entry_signature.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// Checks that an executable's pieces agree, so that running it can trust
// them: allocation i has index i; every parameter has exactly one
// allocation of its shape's size; every output is a whole allocation of its
// shape's size, of kind output or an aliased parameter; aliases name valid,
// distinct outputs and parameters; every slice a thunk uses lies inside its
// allocation; and no thunk writes a constant or a parameter that is not
// aliased (the caller keeps that buffer and its contents).
absl::Status ValidateExecutable(
    const EntrySignature& signature,
    absl::Span<const BufferAllocation> allocations,
    absl::Span<const BufferAllocation::Index> output_allocations,
    const BufferUses& uses);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_EXECUTABLE_VALIDATION_H_
