#ifndef XLA_LITE_HLO_NPY_H_
#define XLA_LITE_HLO_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite {

// NumPy .npy files (format versions 1.0 to 3.0), little-endian, C order,
// of every element type (primitive_util::NpyDescr). NumPy has no bfloat16
// ('<V2' with the descr 'bfloat16' is not portable), so bf16 arrays are
// written as their bits, '<u2', and read as bf16 only when the caller names
// bf16; otherwise '<u2' is u16.
absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 absl::string_view source_name = "<npy>");
std::string SerializeNpy(const Literal& literal);

// As ParseNpy, and '<u2' arrays are read as bf16 bit patterns (what
// SerializeNpy writes for bf16): for callers that know they expect bf16.
absl::StatusOr<Literal> ParseNpyWithBF16(
    absl::string_view bytes, absl::string_view source_name = "<npy>");

absl::StatusOr<Literal> ReadNpyFile(const std::string& path);
absl::StatusOr<Literal> ReadNpyFileWithBF16(const std::string& path);
absl::Status WriteNpyFile(const std::string& path, const Literal& literal);

}  // namespace xla_lite

#endif  // XLA_LITE_HLO_NPY_H_
