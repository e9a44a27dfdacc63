#include "xla_lite/debug_options_validation.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace xla_lite {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Reflection;

// The values each numeric field may take, in one place. Sizes and counts
// are never negative; the upper ends are far past any use and keep sums of
// a few of them exact.
struct FieldRange {
  const char* name;
  int64_t min;
  int64_t max;
};
constexpr FieldRange kFieldRanges[] = {
    {"xla_gpu_graph_min_graph_size", 0, int64_t{1} << 20},
    {"xla_gpu_command_buffer_trace_cache_size", 0, int64_t{1} << 16},
    {"xla_gpu_host_memory_limit_bytes", 0, int64_t{1} << 48},
    {"xla_gpu_emitted_gemm_max_size", 0, int64_t{1} << 48},
    // 0 picks the default; past a day a collective has hung, not slowed.
    {"xla_gpu_collective_timeout_seconds", 0, 24 * 3600},
    // 0 picks the default.
    {"xla_gpu_max_loop_iterations", 0, int64_t{1} << 40},
    {"xla_gpu_autotune_level", 0, 4},
    {"xla_gpu_force_compilation_parallelism", 0, 1024},
    // -1: never.
    {"xla_gpu_dnn_convolution_min_flops", -1, int64_t{1} << 60},
};

}  // namespace

absl::Status ValidateDebugOptions(const DebugOptions& options) {
  const Descriptor& descriptor = *options.GetDescriptor();
  const Reflection& reflection = *options.GetReflection();
  for (const FieldRange& range : kFieldRanges) {
    const FieldDescriptor* field = descriptor.FindFieldByName(range.name);
    if (field == nullptr) {
      return absl::InternalError(
          absl::StrCat("range for unknown DebugOptions field ", range.name));
    }
    const int64_t value = field->cpp_type() == FieldDescriptor::CPPTYPE_INT32
                              ? reflection.GetInt32(options, field)
                              : reflection.GetInt64(options, field);
    if (value < range.min || value > range.max) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", range.name, "=", value, " is out of range [",
                       range.min, ", ", range.max, "]"));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> RangeCheckedDebugOptionsFields() {
  std::vector<std::string> names;
  for (const FieldRange& range : kFieldRanges) names.push_back(range.name);
  return names;
}

}  // namespace xla_lite
