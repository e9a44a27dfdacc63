// Convolutions through the DNN library (cuDNN): which convolutions map to
// which library call (DnnConvolutionFor), checked on every machine by
// running each call's documented meaning plainly on the host against the
// HloEvaluator; then the ConvolutionThunks the compiler emits, on every
// platform, against the evaluator, op by op and replayed in command
// buffers. Platforms without the library keep the emitted kernels.

#include "xla_lite/service/convolution/dnn_convolution.h"

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/service/compiler_test_base.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/hlo/hlo_evaluator.h"

namespace xla_lite::testing {
namespace {

using se::dnn::ConvolutionCall;
using se::dnn::ConvolutionKind;
using se::dnn::TensorLayout;

// Every index of dims[2..], row-major.
std::vector<std::vector<int64_t>> SpatialIndices(const TensorLayout& t) {
  std::vector<std::vector<int64_t>> all = {{}};
  for (size_t d = 2; d < t.dims.size(); ++d) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& prefix : all) {
      for (int64_t i = 0; i < t.dims[d]; ++i) {
        next.push_back(prefix);
        next.back().push_back(i);
      }
    }
    all = std::move(next);
  }
  return all;
}

int64_t Offset(const TensorLayout& t, int64_t a, int64_t b,
               const std::vector<int64_t>& spatial) {
  int64_t offset = a * t.strides[0] + b * t.strides[1];
  for (size_t d = 0; d < spatial.size(); ++d) {
    offset += spatial[d] * t.strides[d + 2];
  }
  return offset;
}

// The input position of output position `o` and tap `t`, or nullopt on
// padding.
std::optional<std::vector<int64_t>> InputPosition(
    const ConvolutionCall& call, const std::vector<int64_t>& o,
    const std::vector<int64_t>& t) {
  std::vector<int64_t> position;
  for (size_t d = 0; d < o.size(); ++d) {
    int64_t p =
        o[d] * call.strides[d] + t[d] * call.dilations[d] - call.padding[d];
    if (p < 0 || p >= call.input.dims[d + 2]) return std::nullopt;
    position.push_back(p);
  }
  return position;
}

// What the library computes for `call` (dnn.h), summed in double, into
// `result` laid out as the written layout says.
void RunPlainly(const ConvolutionCall& call, const std::vector<float>& x,
                const std::vector<float>& second, std::vector<double>& result) {
  const TensorLayout& in = call.input;
  const TensorLayout& w = call.filter;
  const TensorLayout& y = call.output;
  if (call.kind == ConvolutionKind::kForward) {
    const int64_t per_group = w.dims[0] / call.groups;
    for (int64_t n = 0; n < y.dims[0]; ++n) {
      for (int64_t k = 0; k < y.dims[1]; ++k) {
        for (const std::vector<int64_t>& o : SpatialIndices(y)) {
          double sum = 0;
          for (int64_t c = 0; c < w.dims[1]; ++c) {
            for (const std::vector<int64_t>& t : SpatialIndices(w)) {
              auto p = InputPosition(call, o, t);
              if (!p.has_value()) continue;
              std::vector<int64_t> tap = t;
              for (size_t d = 0; d < t.size() && call.flip; ++d) {
                tap[d] = w.dims[d + 2] - 1 - t[d];
              }
              sum += x[Offset(in, n, k / per_group * w.dims[1] + c, *p)] *
                     second[Offset(w, k, c, tap)];
            }
          }
          result[Offset(y, n, k, o)] = sum;
        }
      }
    }
    return;
  }
  for (int64_t k = 0; k < w.dims[0]; ++k) {
    for (int64_t c = 0; c < w.dims[1]; ++c) {
      for (const std::vector<int64_t>& r : SpatialIndices(w)) {
        double sum = 0;
        for (int64_t n = 0; n < y.dims[0]; ++n) {
          for (const std::vector<int64_t>& o : SpatialIndices(y)) {
            auto p = InputPosition(call, o, r);
            if (!p.has_value()) continue;
            sum += x[Offset(in, n, c, *p)] * second[Offset(y, n, k, o)];
          }
        }
        result[Offset(w, k, c, r)] = sum;
      }
    }
  }
}

struct Mapped {
  std::optional<ConvolutionCall> call;
  std::string error;  // Empty when the plain run matched the evaluator.
};

// Maps the root convolution of `hlo` and, when it maps, runs the call
// plainly on random operands against the evaluator.
Mapped MapAndRun(const std::string& hlo) {
  Mapped mapped;
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(hlo);
  if (!module.ok()) return {std::nullopt, module.status().ToString()};
  const HloInstruction& conv =
      *(*module)->entry_computation()->root_instruction();
  absl::StatusOr<gpu::ConvolutionConfig> config =
      gpu::ConvolutionConfigFor(conv);
  if (!config.ok()) return {std::nullopt, config.status().ToString()};
  mapped.call = gpu::DnnConvolutionFor(*config);
  if (!mapped.call.has_value()) return mapped;
  std::mt19937 rng(7);
  std::vector<Literal> args = RandomArguments(**module, rng);
  absl::StatusOr<std::vector<Literal>> expected =
      EvaluateModule(**module, args);
  if (!expected.ok()) return {mapped.call, expected.status().ToString()};
  auto floats = [](const Literal& l) {
    return std::vector<float>(l.data<float>().begin(), l.data<float>().end());
  };
  std::vector<double> result(conv.shape().ElementCount(), 0.0);
  RunPlainly(*mapped.call, floats(args[0]), floats(args[1]), result);
  Literal actual = Literal::FromDoubles(conv.shape(), result);
  // Sums of a few hundred products of [-1, 1): an absolute floor of 1
  // allows the evaluator's f32 rounding, while a wrong index or tap misses
  // by far more.
  absl::Status same = CompareLiterals(actual, (*expected)[0],
                                      kRelativeTolerance, /*floor=*/1.0);
  if (!same.ok()) mapped.error = same.ToString();
  return mapped;
}

struct MappingCase {
  const char* lhs;
  const char* rhs;
  const char* out;
  const char* attributes;
};

// Each case maps to a call of `kind` that computes what the evaluator
// does.
template <size_t N>
void ExpectMapTo(const MappingCase (&cases)[N], ConvolutionKind kind) {
  for (const MappingCase& c : cases) {
    const std::string hlo =
        ConvolutionModule(c.lhs, c.rhs, c.out, c.attributes);
    SCOPED_TRACE(hlo);
    Mapped mapped = MapAndRun(hlo);
    ASSERT_TRUE(mapped.call.has_value()) << mapped.error;
    EXPECT_EQ(mapped.call->kind, kind) << mapped.call->ShapeString();
    EXPECT_EQ(mapped.error, "") << mapped.call->ShapeString();
  }
}

TEST(DnnConvolutionMappingTest, ForwardForms) {
  const MappingCase cases[] = {
      {"2,6,5,3", "3,3,3,16", "2,6,5,16",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      // An input gradient: the transposed kernel labels.
      {"2,6,5,4", "3,3,8,4", "2,6,5,8",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f"},
      // NCHW / OIHW, strided and dilated.
      {"2,3,9,9", "5,3,3,3", "2,5,4,4",
       "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x2}, "
       "dim_labels=bf01_oi01->bf01"},
      // A high side the stride's rounding never reaches.
      {"2,7,6,3", "3,2,3,8", "2,3,3,8",
       "window={size=3x2 stride=2x2 pad=0_1x0_0}, "
       "dim_labels=b01f_01io->b01f"},
      // Feature groups, and a window reversed along every axis.
      {"2,5,5,4", "3,3,2,6", "2,5,5,6",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
       "feature_group_count=2"},
      {"2,5,5,3", "3,3,3,4", "2,5,5,4",
       "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, "
       "dim_labels=b01f_01io->b01f"},
      // One spatial dimension.
      {"4,40,8", "3,8,16", "4,38,16",
       "window={size=3}, dim_labels=b0f_0io->b0f"},
  };
  ExpectMapTo(cases, ConvolutionKind::kForward);
}

TEST(DnnConvolutionMappingTest, FilterGradientForms) {
  const MappingCase cases[] = {
      {"2,6,5,3", "2,6,5,16", "3,3,3,16",
       "window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
      // A stride-2 convolution's filter gradient: the window dilated.
      {"2,9,9,3", "2,5,5,8", "3,3,3,8",
       "window={size=5x5 pad=1_1x1_1 rhs_dilate=2x2}, "
       "dim_labels=f01b_i01o->01bf"},
      // cnn_cifar's first layer, smaller.
      {"4,16,16,3", "4,16,16,32", "3,3,3,32",
       "window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
  };
  ExpectMapTo(cases, ConvolutionKind::kBackwardFilter);
}

TEST(DnnConvolutionMappingTest, FormsTheLibraryCannotTake) {
  const MappingCase cases[] = {
      // lhs dilation (a strided convolution's input gradient).
      {"1,4,4,2", "3,3,2,9", "1,9,9,9",
       "window={size=3x3 pad=2_2x2_2 lhs_dilate=2x2}, "
       "dim_labels=b01f_01io->b01f"},
      // Batch groups (a grouped convolution's filter gradient).
      {"2,5,5,4", "2,5,5,16", "3,3,2,16",
       "window={size=5x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, "
       "batch_group_count=2"},
      // More padding below than above, and negative padding.
      {"2,6,5,3", "3,3,3,4", "2,5,3,4",
       "window={size=3x3 pad=1_0x0_0}, dim_labels=b01f_01io->b01f"},
      {"1,7,7,2", "2,2,2,12", "1,5,4,12",
       "window={size=2x2 pad=0_0x-1_0 rhs_dilate=2x2}, "
       "dim_labels=b01f_01io->b01f"},
      // Reversed along one axis only.
      {"2,5,5,3", "3,3,3,4", "2,5,5,4",
       "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x0}, "
       "dim_labels=b01f_01io->b01f"},
  };
  for (const MappingCase& c : cases) {
    const std::string hlo =
        ConvolutionModule(c.lhs, c.rhs, c.out, c.attributes);
    SCOPED_TRACE(hlo);
    Mapped mapped = MapAndRun(hlo);
    EXPECT_FALSE(mapped.call.has_value()) << mapped.call->ShapeString();
  }
}

// A 3x3 SAME forward call on [2, 4, 5, 5] with buffers exactly its size.
ConvolutionCall SmallForwardCall() {
  ConvolutionCall call;
  call.input = {{2, 4, 5, 5}, {100, 25, 5, 1}};
  call.filter = {{8, 4, 3, 3}, {36, 9, 3, 1}};
  call.output = {{2, 8, 5, 5}, {200, 25, 5, 1}};
  call.padding = {1, 1};
  call.strides = {1, 1};
  call.dilations = {1, 1};
  call.input_data = se::DeviceAddressBase(nullptr, 200 * sizeof(float));
  call.filter_data = se::DeviceAddressBase(nullptr, 288 * sizeof(float));
  call.output_data = se::DeviceAddressBase(nullptr, 400 * sizeof(float));
  return call;
}

// Calls a library must never see: each is INVALID_ARGUMENT saying what
// is wrong, before any platform touches memory.
TEST(DnnConvolutionMappingTest, ValidateRefusesHostileCalls) {
  ASSERT_TRUE(SmallForwardCall().Validate().ok());
  struct Case {
    const char* expected;
    std::function<void(ConvolutionCall&)> edit;
  };
  const Case cases[] = {
      {"holds 796 bytes",
       [](ConvolutionCall& c) {
         c.input_data = se::DeviceAddressBase(nullptr, 796);
       }},
      {"not in [1, 2^31)",
       [](ConvolutionCall& c) { c.input.dims[0] = int64_t{1} << 40; }},
      {"not in [1, 2^31)", [](ConvolutionCall& c) { c.filter.dims[2] = 0; }},
      {"output 4, expected 5",
       [](ConvolutionCall& c) { c.output.dims[3] = 4; }},
      {"groups = 3", [](ConvolutionCall& c) { c.groups = 3; }},
      {"negative padding", [](ConvolutionCall& c) { c.padding[0] = -1; }},
      {"expected 4", [](ConvolutionCall& c) { c.filter.dims.pop_back(); }},
      {"at most 3 spatial",
       [](ConvolutionCall& c) {
         c.padding = {1, 1, 1, 1};
       }},
  };
  for (const Case& c : cases) {
    ConvolutionCall call = SmallForwardCall();
    c.edit(call);
    absl::Status status = call.Validate();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
        << c.expected << ": " << status;
    EXPECT_THAT(std::string(status.message()),
                ::testing::HasSubstr(c.expected));
  }
}

TEST(DnnConvolutionMappingTest, FlopsCountMultiplyAddsTwice) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = Parse(ConvolutionModule(
      "2,6,5,3", "3,3,3,16", "2,6,5,16",
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<gpu::ConvolutionConfig> config = gpu::ConvolutionConfigFor(
      *(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(gpu::ConvolutionFlops(*config), 2 * (2 * 6 * 5 * 16) * (3 * 3 * 3));
}

// Every convolution to the library where there is one.
DebugOptions AllToLibrary(DebugOptions options) {
  options.set_xla_gpu_dnn_convolution_min_flops(0);
  return options;
}

class DnnConvolutionTest : public CompilerTest {
 protected:
  // Whether this platform's convolutions go to a library. A CUDA machine
  // whose cuDNN does not load keeps the emitted kernels, which the tests
  // then check; XLA_LITE_TEST_REQUIRE_PLATFORM naming cudnn (the GPU test
  // script) makes that a failure instead.
  bool HasLibrary() {
    absl::StatusOr<se::dnn::DnnSupport*> dnn = executor_->AsDnn();
    if (!dnn.ok() && GetParam() == "cuda" && PlatformRequired("cudnn")) {
      ADD_FAILURE() << "cuDNN required: " << dnn.status();
    }
    return dnn.ok();
  }
};

const MappingCase kRunCases[] = {
    {"4,8,8,3", "3,3,3,16", "4,8,8,16",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
    {"4,8,8,16", "3,3,8,16", "4,8,8,8",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f"},
    {"4,8,8,3", "4,8,8,16", "3,3,3,16",
     "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
    {"2,3,9,9", "5,3,3,3", "2,5,4,4",
     "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=2x2}, "
     "dim_labels=bf01_oi01->bf01"},
    {"2,5,5,4", "3,3,2,6", "2,5,5,6",
     "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
     "feature_group_count=2"},
};

TEST_P(DnnConvolutionTest, MatchesEvaluatorOpByOp) {
  const bool library = HasLibrary();
  for (const MappingCase& c : kRunCases) {
    const std::string hlo =
        ConvolutionModule(c.lhs, c.rhs, c.out, c.attributes);
    SCOPED_TRACE(hlo);
    auto executable = Compile(hlo, AllToLibrary(OpByOpOptions()));
    ASSERT_TRUE(executable.ok()) << executable.status();
    EXPECT_EQ(CountThunks(**executable, gpu::Thunk::Kind::kConvolution),
              library ? 1 : 0);
    // Small inputs keep the f32 rounding of the sums (in whatever order an
    // algorithm adds) within the comparison's absolute floor.
    ExpectMatchesEvaluator(hlo, -0.125, 0.125, AllToLibrary(OpByOpOptions()));
  }
}

// A filter-gradient step replayed from a command buffer: the library call
// is a traced child graph on stable addresses.
TEST_P(DnnConvolutionTest, ReplaysInCommandBuffers) {
  HasLibrary();
  const std::string hlo = R"(
HloModule step, input_output_alias={ {}: (2, {}, may-alias) }
ENTRY main {
  x = f32[8,16,16,3] parameter(0)
  dy = f32[8,16,16,16] parameter(1)
  k = f32[3,3,3,16] parameter(2)
  dk = f32[3,3,3,16] convolution(x, dy), window={size=16x16 pad=1_1x1_1},
      dim_labels=f01b_i01o->01bf
  y = f32[8,16,16,16] convolution(x, k), window={size=3x3 pad=1_1x1_1},
      dim_labels=b01f_01io->b01f
  s = f32[] constant(0.001)
  ss = f32[3,3,3,16] broadcast(s), dimensions={}
  step = f32[3,3,3,16] multiply(dk, ss)
  k2 = f32[3,3,3,16] subtract(k, step)
  y2 = f32[3,3,3,16] convolution(x, y), window={size=16x16 pad=1_1x1_1},
      dim_labels=f01b_i01o->01bf
  ys = f32[3,3,3,16] multiply(y2, ss)
  ROOT k3 = f32[3,3,3,16] subtract(k2, ys)
})";
  ExpectMatchesEvaluator(hlo, -0.1, 0.1, AllToLibrary(DefaultDebugOptions()),
                         /*steps=*/3);
}

INSTANTIATE_FOR_ALL_PLATFORMS(DnnConvolutionTest);

}  // namespace
}  // namespace xla_lite::testing
