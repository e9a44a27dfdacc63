#ifndef STREAM_EXECUTOR_GPU_CONTENT_HASH_H_
#define STREAM_EXECUTOR_GPU_CONTENT_HASH_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace stream_executor::gpu {

// A 128-bit FNV-1a digest of `parts` as 32 hex digits. Unlike absl::Hash it
// is the same in every process and build, which the on-disk kernel cache
// needs. Each part is length-prefixed, so ("ab", "c") and ("a", "bc") differ.
// Not cryptographic: the cache trusts the directory it is given.
std::string ContentHash(absl::Span<const absl::string_view> parts);

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_CONTENT_HASH_H_
