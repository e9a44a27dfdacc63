#include "xla_lite/debug_options_flags.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "xla_lite/debug_options.pb.h"

namespace xla_lite {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kPresetDir[] = "configs/debug_options/";

// Checks that `status` is InvalidArgument and mentions every one of `parts`.
void ExpectInvalidArgument(const absl::Status& status,
                           std::initializer_list<const char*> parts) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const char* part : parts) {
    EXPECT_THAT(std::string(status.message()), HasSubstr(part));
  }
}

// Applies `flags`, failing the test (with the parser's message) on error.
void ApplyFlags(absl::string_view flags, DebugOptions* options) {
  const absl::Status status = ParseFlagsIntoDebugOptions(flags, options);
  ASSERT_TRUE(status.ok()) << flags << ": " << status;
}

// ---------------------------------------------------------------------------
// Scalars.

TEST(ParseFlagsTest, EmptyStringChangesNothing) {
  DebugOptions options = DefaultDebugOptions();
  ApplyFlags("  \t\n ", &options);
  EXPECT_TRUE(MessageDifferencer::Equals(options, DefaultDebugOptions()));
}

TEST(ParseFlagsTest, Integers) {
  DebugOptions options;
  ApplyFlags(
      "--xla_gpu_graph_min_graph_size=7 "
      "--xla_gpu_host_memory_limit_bytes=17179869184",
      &options);
  EXPECT_EQ(options.xla_gpu_graph_min_graph_size(), 7);
  EXPECT_EQ(options.xla_gpu_host_memory_limit_bytes(), 17179869184);
}

TEST(ParseFlagsTest, Int32OverflowIsRejected) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_graph_min_graph_size=4294967296",
                                 &options),
      {"--xla_gpu_graph_min_graph_size", "\"4294967296\"", "int32"});
}

TEST(ParseFlagsTest, BoolForms) {
  struct Case {
    const char* flags;
    bool expected;
  };
  for (const Case& c : {Case{"--xla_gpu_allow_tf32", true},
                        Case{"--xla_gpu_allow_tf32=true", true},
                        Case{"--xla_gpu_allow_tf32=TRUE", true},
                        Case{"--xla_gpu_allow_tf32=1", true},
                        Case{"--xla_gpu_allow_tf32=false", false},
                        Case{"--xla_gpu_allow_tf32=False", false},
                        Case{"--xla_gpu_allow_tf32=0", false}}) {
    DebugOptions options;
    options.set_xla_gpu_allow_tf32(!c.expected);
    ApplyFlags(c.flags, &options);
    EXPECT_EQ(options.xla_gpu_allow_tf32(), c.expected) << c.flags;
  }
}

TEST(ParseFlagsTest, BadBool) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_allow_tf32=yes", &options),
      {"--xla_gpu_allow_tf32", "\"yes\"", "bool", "true, false, 1 or 0"});
}

TEST(ParseFlagsTest, BareFlagOnlyForBools) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_graph_min_graph_size", &options),
      {"--xla_gpu_graph_min_graph_size", "needs a value"});
}

TEST(ParseFlagsTest, Strings) {
  DebugOptions options;
  options.set_xla_gpu_dump_command_buffer_dot_dir("/old");
  ApplyFlags(
      "--xla_gpu_kernel_cache_dir=/tmp/a=b "
      "--xla_gpu_dump_command_buffer_dot_dir=",
      &options);
  // Only the first '=' separates name and value.
  EXPECT_EQ(options.xla_gpu_kernel_cache_dir(), "/tmp/a=b");
  EXPECT_EQ(options.xla_gpu_dump_command_buffer_dot_dir(), "");
}

TEST(ParseFlagsTest, QuotedStrings) {
  DebugOptions options;
  ApplyFlags(R"(--xla_gpu_kernel_cache_dir="/my cache/\"x\"\\" )"
             R"(--xla_gpu_dump_command_buffer_dot_dir='/dots dir/\n')",
             &options);
  EXPECT_EQ(options.xla_gpu_kernel_cache_dir(), R"(/my cache/"x"\)");
  EXPECT_EQ(options.xla_gpu_dump_command_buffer_dot_dir(), R"(/dots dir/\n)");
}

TEST(ParseFlagsTest, UnterminatedQuote) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_kernel_cache_dir=\"/a b", &options),
      {"unterminated"});
}

TEST(ParseFlagsTest, LaterFlagWins) {
  DebugOptions options;
  ApplyFlags(
      "--xla_gpu_graph_min_graph_size=3 "
      "--xla_gpu_graph_min_graph_size=5",
      &options);
  EXPECT_EQ(options.xla_gpu_graph_min_graph_size(), 5);
}

// ---------------------------------------------------------------------------
// Enums.

TEST(ParseFlagsTest, EnumFullShortAndCaseInsensitiveNames) {
  struct Case {
    const char* value;
    DebugOptions::ParameterStabilization expected;
  };
  for (const Case& c :
       {Case{"PARAMETER_STABILIZATION_STAGED",
             DebugOptions::PARAMETER_STABILIZATION_STAGED},
        Case{"parameter_stabilization_copy",
             DebugOptions::PARAMETER_STABILIZATION_COPY},
        Case{"STAGED", DebugOptions::PARAMETER_STABILIZATION_STAGED},
        Case{"copy", DebugOptions::PARAMETER_STABILIZATION_COPY},
        Case{"NONE", DebugOptions::PARAMETER_STABILIZATION_NONE}}) {
    DebugOptions options;
    options.set_xla_gpu_command_buffer_parameter_stabilization(
        c.expected == DebugOptions::PARAMETER_STABILIZATION_STAGED
            ? DebugOptions::PARAMETER_STABILIZATION_NONE
            : DebugOptions::PARAMETER_STABILIZATION_STAGED);
    ApplyFlags(
        std::string("--xla_gpu_command_buffer_parameter_stabilization=") +
            c.value,
        &options);
    EXPECT_EQ(options.xla_gpu_command_buffer_parameter_stabilization(),
              c.expected)
        << c.value;
  }
}

TEST(ParseFlagsTest, InvalidEnumListsValidNames) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_command_buffer_parameter_stabilization=MOVE", &options),
      {"--xla_gpu_command_buffer_parameter_stabilization", "\"MOVE\"",
       "PARAMETER_STABILIZATION_NONE", "PARAMETER_STABILIZATION_COPY",
       "PARAMETER_STABILIZATION_STAGED", "prefix may be omitted"});
  // Only the whole prefix may be left out.
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_command_buffer_parameter_stabilization=STABILIZATION_COPY",
          &options),
      {"\"STABILIZATION_COPY\""});
}

// ---------------------------------------------------------------------------
// Lists.

TEST(ParseFlagsTest, ListReplace) {
  DebugOptions options = DefaultDebugOptions();
  ApplyFlags("--xla_gpu_enable_command_buffer=COLLECTIVES,fusion", &options);
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::COLLECTIVES, DebugOptions::FUSION));
}

TEST(ParseFlagsTest, ListEditsAllApplyInOrder) {
  DebugOptions options = DefaultDebugOptions();
  ApplyFlags(
      "--xla_gpu_enable_command_buffer=+COLLECTIVES,-FUSION,-MEMSET,+CUBLAS",
      &options);
  // +CUBLAS is already present, so it is not added twice.
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::CUBLAS, DebugOptions::MEMCPY,
                          DebugOptions::WHILE, DebugOptions::CONDITIONAL,
                          DebugOptions::CUDNN, DebugOptions::COLLECTIVES));
}

TEST(ParseFlagsTest, ListRemoveDropsEveryOccurrence) {
  DebugOptions options;
  ApplyFlags(
      "--xla_gpu_enable_command_buffer=FUSION,CUBLAS,FUSION "
      "--xla_gpu_enable_command_buffer=-FUSION",
      &options);
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::CUBLAS));
}

TEST(ParseFlagsTest, ListRemovingAbsentItemIsNotAnError) {
  DebugOptions options = DefaultDebugOptions();
  ApplyFlags("--xla_gpu_enable_command_buffer=-COLLECTIVES", &options);
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::FUSION, DebugOptions::CUBLAS,
                          DebugOptions::MEMCPY, DebugOptions::MEMSET,
                          DebugOptions::WHILE, DebugOptions::CONDITIONAL,
                          DebugOptions::CUDNN));
}

TEST(ParseFlagsTest, ListEmptyValueClears) {
  DebugOptions options = DefaultDebugOptions();
  ApplyFlags("--xla_gpu_enable_command_buffer=", &options);
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(), IsEmpty());
}

TEST(ParseFlagsTest, ListMixingPlainAndEditsIsAnError) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_enable_command_buffer=FUSION,-CUBLAS", &options),
      {"--xla_gpu_enable_command_buffer", "\"FUSION,-CUBLAS\"", "mixes"});
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_enable_command_buffer=+FUSION,CUBLAS", &options),
      {"mixes"});
}

TEST(ParseFlagsTest, ListEmptyItemIsAnError) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_enable_command_buffer=FUSION,",
                                 &options),
      {"empty item"});
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_enable_command_buffer=+", &options),
      {"empty item"});
}

TEST(ParseFlagsTest, ListBadItemNamesItemAndList) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions(
          "--xla_gpu_enable_command_buffer=+CUBLAS,+GEMM", &options),
      {"--xla_gpu_enable_command_buffer", "\"+CUBLAS,+GEMM\"", "\"GEMM\"",
       "COLLECTIVES"});
}

// ---------------------------------------------------------------------------
// Errors.

TEST(ParseFlagsTest, UnknownFlag) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("--xla_gpu_no_such_flag=1", &options),
      {"unknown flag --xla_gpu_no_such_flag"});
}

TEST(ParseFlagsTest, NotAFlag) {
  DebugOptions options;
  ExpectInvalidArgument(
      ParseFlagsIntoDebugOptions("xla_gpu_allow_tf32=true", &options),
      {"\"xla_gpu_allow_tf32=true\" is not a flag"});
  ExpectInvalidArgument(ParseFlagsIntoDebugOptions("--=1", &options),
                        {"is not a flag"});
}

TEST(ParseFlagsTest, BadValueMessage) {
  DebugOptions options;
  const absl::Status status = ParseFlagsIntoDebugOptions(
      "--xla_gpu_graph_min_graph_size=abc", &options);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "--xla_gpu_graph_min_graph_size: \"abc\" is not a valid int32");
}

TEST(ParseFlagsTest, AllOrNothing) {
  DebugOptions options = DefaultDebugOptions();
  const absl::Status status = ParseFlagsIntoDebugOptions(
      "--xla_gpu_graph_min_graph_size=9 "
      "--xla_gpu_enable_command_buffer=-FUSION "
      "--xla_gpu_kernel_cache_dir=/cache "
      "--xla_gpu_allow_tf32=maybe",
      &options);
  ExpectInvalidArgument(status, {"--xla_gpu_allow_tf32", "\"maybe\""});
  EXPECT_TRUE(MessageDifferencer::Equals(options, DefaultDebugOptions()))
      << options.DebugString();
}

// ---------------------------------------------------------------------------
// Defaults, environment and printing.

TEST(DefaultDebugOptionsTest, Values) {
  const DebugOptions options = DefaultDebugOptions();
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::FUSION, DebugOptions::CUBLAS,
                          DebugOptions::MEMCPY, DebugOptions::MEMSET,
                          DebugOptions::WHILE, DebugOptions::CONDITIONAL,
                          DebugOptions::CUDNN));
  EXPECT_EQ(options.xla_gpu_graph_min_graph_size(), 1);
  EXPECT_EQ(options.xla_gpu_command_buffer_trace_cache_size(), 16);
  EXPECT_EQ(options.xla_gpu_dnn_convolution_min_flops(), -1);
  EXPECT_TRUE(options.xla_gpu_command_buffer_use_cached_allocs());
  EXPECT_EQ(options.xla_gpu_command_buffer_parameter_stabilization(),
            DebugOptions::PARAMETER_STABILIZATION_COPY);
  EXPECT_FALSE(options.xla_gpu_allow_tf32());
  EXPECT_EQ(options.xla_gpu_host_memory_limit_bytes(), 0);
}

TEST(DebugOptionsFromEnvironmentTest, AppliesXlaFlagsOverDefaults) {
  ASSERT_EQ(setenv("XLA_FLAGS", "--xla_gpu_enable_command_buffer=-CUBLAS", 1),
            0);
  absl::StatusOr<DebugOptions> options = DebugOptionsFromEnvironment();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(options->xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::FUSION, DebugOptions::MEMCPY,
                          DebugOptions::MEMSET, DebugOptions::WHILE,
                          DebugOptions::CONDITIONAL, DebugOptions::CUDNN));
  EXPECT_EQ(options->xla_gpu_command_buffer_trace_cache_size(), 16);

  ASSERT_EQ(setenv("XLA_FLAGS", "--xla_gpu_bogus", 1), 0);
  ExpectInvalidArgument(DebugOptionsFromEnvironment().status(),
                        {"XLA_FLAGS: ", "--xla_gpu_bogus"});

  ASSERT_EQ(unsetenv("XLA_FLAGS"), 0);
  options = DebugOptionsFromEnvironment();
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_TRUE(MessageDifferencer::Equals(*options, DefaultDebugOptions()));
}

TEST(DebugOptionsToFlagsTest, DefaultsPrintNothing) {
  EXPECT_EQ(DebugOptionsToFlags(DefaultDebugOptions()), "");
}

TEST(DebugOptionsToFlagsTest, PrintsOnlyChangedFields) {
  DebugOptions options = DefaultDebugOptions();
  options.set_xla_gpu_graph_min_graph_size(4);
  options.set_xla_gpu_command_buffer_use_cached_allocs(false);
  EXPECT_EQ(DebugOptionsToFlags(options),
            "--xla_gpu_graph_min_graph_size=4 "
            "--xla_gpu_command_buffer_use_cached_allocs=false");
}

TEST(DebugOptionsToFlagsTest, RoundTrips) {
  DebugOptions options = DefaultDebugOptions();
  options.clear_xla_gpu_enable_command_buffer();
  options.add_xla_gpu_enable_command_buffer(DebugOptions::COLLECTIVES);
  options.add_xla_gpu_enable_command_buffer(DebugOptions::FUSION);
  options.set_xla_gpu_graph_min_graph_size(3);
  options.set_xla_gpu_command_buffer_trace_cache_size(0);
  options.set_xla_gpu_command_buffer_use_cached_allocs(false);
  options.set_xla_gpu_command_buffer_parameter_stabilization(
      DebugOptions::PARAMETER_STABILIZATION_STAGED);
  options.set_xla_gpu_kernel_cache_dir("/path with spaces/\"q\"/'s'\\");
  options.set_xla_gpu_allow_tf32(true);
  options.set_xla_gpu_dump_command_buffer_dot_dir("/dots");
  options.set_xla_gpu_host_memory_limit_bytes(int64_t{1} << 40);
  options.set_xla_gpu_use_emitted_gemm(true);

  const std::string flags = DebugOptionsToFlags(options);
  DebugOptions parsed = DefaultDebugOptions();
  ApplyFlags(flags, &parsed);
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, options))
      << flags << "\n"
      << parsed.DebugString();
}

TEST(DebugOptionsToFlagsTest, EmptyListRoundTrips) {
  DebugOptions options = DefaultDebugOptions();
  options.clear_xla_gpu_enable_command_buffer();
  const std::string flags = DebugOptionsToFlags(options);
  EXPECT_EQ(flags, "--xla_gpu_enable_command_buffer=");
  DebugOptions parsed = DefaultDebugOptions();
  ApplyFlags(flags, &parsed);
  EXPECT_THAT(parsed.xla_gpu_enable_command_buffer(), IsEmpty());
}

// ---------------------------------------------------------------------------
// Presets.

DebugOptions LoadPreset(const std::string& name,
                        DebugOptions options = DefaultDebugOptions()) {
  const absl::Status status =
      LoadDebugOptionsPreset(std::string(kPresetDir) + name, &options);
  EXPECT_TRUE(status.ok()) << status;
  return options;
}

TEST(PresetTest, OpByOpTurnsCommandBuffersOff) {
  const DebugOptions options = LoadPreset("op_by_op.txtpb");
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(), IsEmpty());
  // Fields the preset does not name keep their current values.
  EXPECT_EQ(options.xla_gpu_command_buffer_trace_cache_size(), 16);
  EXPECT_TRUE(options.xla_gpu_command_buffer_use_cached_allocs());
}

TEST(PresetTest, CommandBuffersNoCacheSetsDefaultValuedFields) {
  const DebugOptions options = LoadPreset("command_buffers_no_cache.txtpb");
  EXPECT_THAT(options.xla_gpu_enable_command_buffer(),
              ElementsAre(DebugOptions::FUSION, DebugOptions::CUBLAS,
                          DebugOptions::MEMCPY, DebugOptions::MEMSET,
                          DebugOptions::WHILE, DebugOptions::CONDITIONAL,
                          DebugOptions::CUDNN));
  EXPECT_FALSE(options.xla_gpu_command_buffer_use_cached_allocs());
  EXPECT_EQ(options.xla_gpu_command_buffer_parameter_stabilization(),
            DebugOptions::PARAMETER_STABILIZATION_NONE);
}

TEST(PresetTest, CachedCopy) {
  DebugOptions start = DefaultDebugOptions();
  start.set_xla_gpu_command_buffer_use_cached_allocs(false);
  start.set_xla_gpu_command_buffer_parameter_stabilization(
      DebugOptions::PARAMETER_STABILIZATION_NONE);
  const DebugOptions options = LoadPreset("cached_copy.txtpb", start);
  EXPECT_TRUE(options.xla_gpu_command_buffer_use_cached_allocs());
  EXPECT_EQ(options.xla_gpu_command_buffer_parameter_stabilization(),
            DebugOptions::PARAMETER_STABILIZATION_COPY);
  // The list is replaced, not appended to.
  EXPECT_EQ(options.xla_gpu_enable_command_buffer_size(), 7);
}

TEST(PresetTest, CachedStaged) {
  const DebugOptions options = LoadPreset("cached_staged.txtpb");
  EXPECT_TRUE(options.xla_gpu_command_buffer_use_cached_allocs());
  EXPECT_EQ(options.xla_gpu_command_buffer_parameter_stabilization(),
            DebugOptions::PARAMETER_STABILIZATION_STAGED);
  EXPECT_EQ(options.xla_gpu_enable_command_buffer_size(), 7);
}

TEST(PresetTest, MissingFile) {
  DebugOptions options;
  const absl::Status status =
      LoadDebugOptionsPreset("configs/debug_options/nope.txtpb", &options);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr("nope.txtpb"));
}

TEST(PresetTest, FolderIsNotAPreset) {
  DebugOptions options = DefaultDebugOptions();
  const absl::Status status =
      LoadDebugOptionsPreset(::testing::TempDir(), &options);
  ExpectInvalidArgument(status, {"debug options preset", "not a regular file"});
  EXPECT_TRUE(MessageDifferencer::Equals(options, DefaultDebugOptions()));
}

TEST(PresetTest, MalformedFileReportsLine) {
  const std::string path = ::testing::TempDir() + "malformed.txtpb";
  {
    std::ofstream file(path);
    file << "# a comment\n"
         << "xla_gpu_graph_min_graph_size: 3\n"
         << "xla_gpu_enable_command_buffer: [FUSION CUBLAS]\n"
         << "xla_gpu_allow_tf32: true\n";
  }
  DebugOptions options = DefaultDebugOptions();
  const absl::Status status = LoadDebugOptionsPreset(path, &options);
  ExpectInvalidArgument(status, {"malformed.txtpb:3:", "CUBLAS"});
  EXPECT_TRUE(MessageDifferencer::Equals(options, DefaultDebugOptions()));
}

TEST(PresetTest, UnknownFieldReportsLine) {
  const std::string path = ::testing::TempDir() + "unknown_field.txtpb";
  {
    std::ofstream file(path);
    file << "xla_gpu_allow_tf32: true\n\nxla_gpu_warp_speed: 9\n";
  }
  DebugOptions options;
  ExpectInvalidArgument(LoadDebugOptionsPreset(path, &options),
                        {"unknown_field.txtpb:3:", "xla_gpu_warp_speed"});
}

// ---------------------------------------------------------------------------
// The reflection engine on every scalar type, through a message built at run
// time (DebugOptions has no float, double or unsigned fields).

constexpr char kAllTypesProto[] = R"pb(
  name: "all_types.proto"
  package: "xla_lite.test"
  syntax: "proto3"
  message_type {
    name: "AllTypes"
    field { name: "b" number: 1 label: LABEL_OPTIONAL type: TYPE_BOOL }
    field { name: "i32" number: 2 label: LABEL_OPTIONAL type: TYPE_INT32 }
    field { name: "i64" number: 3 label: LABEL_OPTIONAL type: TYPE_INT64 }
    field { name: "u32" number: 4 label: LABEL_OPTIONAL type: TYPE_UINT32 }
    field { name: "u64" number: 5 label: LABEL_OPTIONAL type: TYPE_UINT64 }
    field { name: "f" number: 6 label: LABEL_OPTIONAL type: TYPE_FLOAT }
    field { name: "d" number: 7 label: LABEL_OPTIONAL type: TYPE_DOUBLE }
    field { name: "s" number: 8 label: LABEL_OPTIONAL type: TYPE_STRING }
    field {
      name: "color"
      number: 9
      label: LABEL_OPTIONAL
      type: TYPE_ENUM
      type_name: ".xla_lite.test.AllTypes.Color"
    }
    field { name: "ints" number: 10 label: LABEL_REPEATED type: TYPE_INT32 }
    field { name: "strs" number: 11 label: LABEL_REPEATED type: TYPE_STRING }
    field {
      name: "child"
      number: 12
      label: LABEL_OPTIONAL
      type: TYPE_MESSAGE
      type_name: ".xla_lite.test.AllTypes"
    }
    enum_type {
      name: "Color"
      value { name: "COLOR_UNSPECIFIED" number: 0 }
      value { name: "COLOR_DARK_RED" number: 1 }
    }
  }
)pb";

class AllTypesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    google::protobuf::FileDescriptorProto file;
    ASSERT_TRUE(
        google::protobuf::TextFormat::ParseFromString(kAllTypesProto, &file));
    ASSERT_NE(pool_.BuildFile(file), nullptr);
    message_.reset(
        factory_
            .GetPrototype(pool_.FindMessageTypeByName("xla_lite.test.AllTypes"))
            ->New());
  }

  std::string Text() const {
    std::string text;
    google::protobuf::TextFormat::PrintToString(*message_, &text);
    return text;
  }

  google::protobuf::DescriptorPool pool_;
  google::protobuf::DynamicMessageFactory factory_{&pool_};
  std::unique_ptr<google::protobuf::Message> message_;
};

TEST_F(AllTypesTest, EveryScalarType) {
  ASSERT_TRUE(
      ParseFlagsIntoMessage("--b --i32=-5 --i64=-9000000000 --u32=4000000000 "
                            "--u64=18000000000000000000 --f=0.25 --d=-1e300 "
                            "--s=hello --color=dark_red",
                            message_.get())
          .ok());
  EXPECT_EQ(Text(),
            "b: true\n"
            "i32: -5\n"
            "i64: -9000000000\n"
            "u32: 4000000000\n"
            "u64: 18000000000000000000\n"
            "f: 0.25\n"
            "d: -1e+300\n"
            "s: \"hello\"\n"
            "color: COLOR_DARK_RED\n");
}

TEST_F(AllTypesTest, BadNumbers) {
  ExpectInvalidArgument(ParseFlagsIntoMessage("--u32=-1", message_.get()),
                        {"--u32", "\"-1\"", "uint32"});
  ExpectInvalidArgument(ParseFlagsIntoMessage("--f=fast", message_.get()),
                        {"--f", "\"fast\"", "float"});
  ExpectInvalidArgument(ParseFlagsIntoMessage("--d=1.5x", message_.get()),
                        {"--d", "\"1.5x\"", "double"});
  ExpectInvalidArgument(ParseFlagsIntoMessage("--i64=1e3", message_.get()),
                        {"--i64", "\"1e3\"", "int64"});
}

TEST_F(AllTypesTest, MessageFieldsAreRejected) {
  ExpectInvalidArgument(ParseFlagsIntoMessage("--child=x", message_.get()),
                        {"--child", "message"});
}

TEST_F(AllTypesTest, RepeatedNumbersAndStrings) {
  ASSERT_TRUE(ParseFlagsIntoMessage("--ints=3,1,3 --ints=-3,+7 "
                                    "--strs=a,b --strs=+c,-a,+b",
                                    message_.get())
                  .ok());
  EXPECT_EQ(Text(), "ints: 1\nints: 7\nstrs: \"b\"\nstrs: \"c\"\n");
}

TEST_F(AllTypesTest, FlagsRoundTrip) {
  std::unique_ptr<google::protobuf::Message> defaults(message_->New());
  ASSERT_TRUE(ParseFlagsIntoMessage(
                  "--b=0 --i32=7 --u64=1 --f=0.1 --d=3.141592653589793 "
                  "--s='a b' --color=COLOR_DARK_RED --ints= --ints=+-1,+-2,+5 "
                  "--strs=x,y",
                  message_.get())
                  .ok());
  const std::string flags = MessageToFlags(*message_, *defaults);
  ASSERT_TRUE(ParseFlagsIntoMessage(flags, defaults.get()).ok()) << flags;
  EXPECT_TRUE(MessageDifferencer::Equals(*defaults, *message_)) << flags << "\n"
                                                                << Text();
  EXPECT_THAT(flags, HasSubstr("--f=0.1 "));
}

}  // namespace
}  // namespace xla_lite
