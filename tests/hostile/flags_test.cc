// XLA_FLAGS and presets: every numeric DebugOptions field is range-checked
// in one place, and a value out of range leaves the options unchanged.

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "xla_lite/debug_options_flags.h"

namespace xla_lite {
namespace {

using google::protobuf::FieldDescriptor;

TEST(FlagRangesTest, EveryNumericFieldHasARange) {
  std::vector<std::string> checked = RangeCheckedDebugOptionsFields();
  const auto& descriptor = *DebugOptions::descriptor();
  for (int i = 0; i < descriptor.field_count(); ++i) {
    const FieldDescriptor& field = *descriptor.field(i);
    bool numeric = field.cpp_type() == FieldDescriptor::CPPTYPE_INT32 ||
                   field.cpp_type() == FieldDescriptor::CPPTYPE_INT64 ||
                   field.cpp_type() == FieldDescriptor::CPPTYPE_UINT32 ||
                   field.cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
    if (!numeric) continue;
    EXPECT_NE(std::find(checked.begin(), checked.end(), field.name()),
              checked.end())
        << field.name() << " has no range in ValidateDebugOptions";
  }
}

TEST(FlagRangesTest, NegativeSizesAndCountsAreRefused) {
  for (const char* name :
       {"xla_gpu_graph_min_graph_size",
        "xla_gpu_command_buffer_trace_cache_size",
        "xla_gpu_host_memory_limit_bytes", "xla_gpu_emitted_gemm_max_size"}) {
    DebugOptions options = DefaultDebugOptions();
    const std::string flag = absl::StrCat("--", name, "=-1");
    absl::Status status = ParseFlagsIntoDebugOptions(flag, &options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_TRUE(absl::StrContains(status.message(),
                                  absl::StrCat(flag, " is out of range")))
        << status;
    // All or nothing: the options stay the defaults.
    EXPECT_EQ(options.SerializeAsString(),
              DefaultDebugOptions().SerializeAsString());
  }
}

TEST(FlagRangesTest, ValuesInRangeAreKept) {
  DebugOptions options = DefaultDebugOptions();
  ASSERT_TRUE(ParseFlagsIntoDebugOptions(
                  "--xla_gpu_graph_min_graph_size=0 "
                  "--xla_gpu_emitted_gemm_max_size=0 "
                  "--xla_gpu_host_memory_limit_bytes=1099511627776",
                  &options)
                  .ok());
  EXPECT_EQ(options.xla_gpu_graph_min_graph_size(), 0);
  EXPECT_EQ(options.xla_gpu_host_memory_limit_bytes(), int64_t{1} << 40);
  EXPECT_FALSE(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_command_buffer_trace_cache_size=100000000", &options)
          .ok());
}

TEST(FlagRangesTest, AutotuneLevelIsZeroToFour) {
  DebugOptions options = DefaultDebugOptions();
  EXPECT_EQ(options.xla_gpu_autotune_level(), 0);
  ASSERT_TRUE(
      ParseFlagsIntoDebugOptions("--xla_gpu_autotune_level=4", &options).ok());
  EXPECT_EQ(options.xla_gpu_autotune_level(), 4);
  for (const char* flag :
       {"--xla_gpu_autotune_level=5", "--xla_gpu_autotune_level=-1"}) {
    absl::Status status = ParseFlagsIntoDebugOptions(flag, &options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << flag;
    EXPECT_EQ(options.xla_gpu_autotune_level(), 4) << flag;
  }
}

TEST(FlagRangesTest, PresetsAreCheckedToo) {
  const std::string path = ::testing::TempDir() + "/negative.txtpb";
  std::ofstream(path) << "xla_gpu_graph_min_graph_size: -4\n";
  DebugOptions options = DefaultDebugOptions();
  absl::Status status = LoadDebugOptionsPreset(path, &options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), path)) << status;
  EXPECT_EQ(options.xla_gpu_graph_min_graph_size(), 1);
}

}  // namespace
}  // namespace xla_lite
