#include "xla_lite/service/convolution/windowed_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"
#include "xla_lite/service/convolution/conv_gemm_kernel.h"
#include "xla_lite/service/convolution/windowed_host_kernels.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::gpu {
namespace {

// Every kernel walks a grid-stride loop over its outputs; sums add one
// product at a time (NVRTC --fmad=false, hiprtc -ffp-contract=off) in the
// host kernels' order. Indices are xl_index: int where every array's
// elements (and the loop's last step past them) fit, since 64-bit division
// by a constant, which every index decomposition is, costs several times
// the 32-bit one; long long otherwise.
constexpr char kKernelTemplate[] = R"(// Emitted $WHAT: $CONFIG
$AWAIT_PRODUCERS
$FLOAT16
typedef $INDEX xl_index;
$DEFINITIONS
extern "C" __global__ void __launch_bounds__(256)
$ENTRY($PARAMETERS) {
  XL_AWAIT_PRODUCERS();
  for (xl_index o = (xl_index)blockIdx.x * blockDim.x + threadIdx.x;
       o < $COUNT; o += (xl_index)gridDim.x * blockDim.x) {
$BODY
  }
}
)";

// Arrays of at most this many elements take int indices: the grid-stride
// loop's index stays below twice that.
constexpr int64_t kMaxIntIndexedElements =
    std::numeric_limits<int32_t>::max() / 2;

// An index constant: an int literal where it fits (also under long long
// indices, where it meets a long long variable in every expression), else
// a long long one.
std::string IndexConstant(int64_t value) {
  if (value >= std::numeric_limits<int32_t>::min() &&
      value <= std::numeric_limits<int32_t>::max()) {
    return absl::StrCat("(", value, ")");
  }
  return absl::StrCat("(", value, "LL)");
}

// An f32 constant in C: infinities and NaN by their bits, as NVRTC and
// hiprtc have no INFINITY without headers.
std::string FloatLiteral(double value) {
  if (std::isnan(value)) return "__int_as_float(0x7fc00000)";
  if (std::isinf(value)) {
    return value < 0 ? "__int_as_float(0xff800000)"
                     : "__int_as_float(0x7f800000)";
  }
  return absl::StrCat("(", absl::StrFormat("%.9e", value), "f)");
}

// The position along axis `i` of the window output `o` lies at: s<i>.
std::string OutPosition(const WindowedAxis& axis, int i,
                        absl::string_view index) {
  return absl::StrCat("    const xl_index s", i, " = (", index, " / ",
                      IndexConstant(axis.out_stride), ") % ",
                      IndexConstant(axis.out_size), ";\n");
}

// Opens a loop over the taps of axis `i` that skips padding and holes and
// leaves the base offset so far in x<i> (x<i-1> before it, "0" first).
std::string TapLoop(const WindowedAxis& axis, int i, const std::string& s) {
  const int64_t dilated = (axis.base_size - 1) * axis.base_dilation + 1;
  const std::string prev = i == 0 ? "(xl_index)0" : absl::StrCat("x", i - 1);
  return absl::StrCat(
      "    for (xl_index t", i, " = 0; t", i, " < ", IndexConstant(axis.window),
      "; ++t", i, ") {\n", "      const xl_index p", i, " = ", s, " * ",
      IndexConstant(axis.stride), " + t", i, " * ",
      IndexConstant(axis.window_dilation), " - ", IndexConstant(axis.pad_low),
      ";\n", "      if (p", i, " < 0 || p", i, " >= ", IndexConstant(dilated),
      " || p", i, " % ", IndexConstant(axis.base_dilation),
      " != 0) continue;\n", "      const xl_index x", i, " = ", prev, " + (p",
      i, " / ", IndexConstant(axis.base_dilation), ") * ",
      IndexConstant(axis.base_stride), ";\n");
}

std::string Close(size_t loops) {
  std::string text;
  for (size_t i = 0; i < loops; ++i) absl::StrAppend(&text, "    }\n");
  return text;
}

std::string Last(absl::string_view prefix, size_t count) {
  return count == 0 ? "(xl_index)0" : absl::StrCat(prefix, count - 1);
}

// `largest`: the element count of the kernel's largest array.
std::string Source(absl::string_view what, const std::string& config,
                   const std::string& entry, absl::string_view parameters,
                   int64_t count, int64_t largest, const std::string& body,
                   const std::string& definitions = "") {
  const bool narrow = std::max(count, largest) <= kMaxIntIndexedElements;
  return absl::StrReplaceAll(kKernelTemplate,
                             {{"$WHAT", what},
                              {"$INDEX", narrow ? "int" : "long long"},
                              {"$CONFIG", config},
                              {"$AWAIT_PRODUCERS", kAwaitProducersSource},
                              {"$FLOAT16", kFloat16DeviceSource},
                              {"$DEFINITIONS", definitions},
                              {"$ENTRY", entry},
                              {"$PARAMETERS", parameters},
                              {"$COUNT", IndexConstant(count)},
                              {"$BODY", body}});
}

std::string ConvolutionBody(const ConvolutionConfig& c) {
  std::string body = absl::StrCat(
      "    const xl_index b = (o / ", IndexConstant(c.out_batch_stride), ") % ",
      IndexConstant(c.out_batch), ";\n", "    const xl_index f = (o / ",
      IndexConstant(c.out_feature_stride), ") % ",
      IndexConstant(c.out_features), ";\n", "    const float* x = lhs + ((f / ",
      IndexConstant(c.per_batch_group), ") * ", IndexConstant(c.out_batch),
      " + b) * ", IndexConstant(c.lhs_batch_stride), " + (f / ",
      IndexConstant(c.per_feature_group), ") * ",
      IndexConstant(c.kernel_inputs * c.lhs_feature_stride), ";\n",
      "    const float* w = rhs + f * ", IndexConstant(c.rhs_output_stride),
      ";\n", "    float acc = 0.0f;\n");
  for (size_t i = 0; i < c.spatial.size(); ++i) {
    absl::StrAppend(&body, OutPosition(c.spatial[i], i, "o"));
  }
  for (size_t i = 0; i < c.spatial.size(); ++i) {
    const WindowedAxis& axis = c.spatial[i];
    absl::StrAppend(&body, TapLoop(axis, i, absl::StrCat("s", i)));
    const std::string tap =
        axis.reversal
            ? absl::StrCat("(", IndexConstant(axis.window - 1), " - t", i, ")")
            : absl::StrCat("t", i);
    absl::StrAppend(&body, "      const xl_index w", i, " = ",
                    i == 0 ? "(xl_index)0" : absl::StrCat("w", i - 1), " + ",
                    tap, " * ", IndexConstant(axis.kernel_stride), ";\n");
  }
  const std::string xs = Last("x", c.spatial.size()),
                    ws = Last("w", c.spatial.size());
  absl::StrAppend(&body, "      for (xl_index k = 0; k < ",
                  IndexConstant(c.kernel_inputs), "; ++k) {\n",
                  "        acc += x[", xs, " + k * ",
                  IndexConstant(c.lhs_feature_stride), "] * w[", ws, " + k * ",
                  IndexConstant(c.rhs_input_stride), "];\n      }\n",
                  Close(c.spatial.size()), "    out[o] = acc;");
  return body;
}

std::string ReduceWindowBody(const PoolingConfig& c) {
  std::string body =
      absl::StrCat("    float acc = ", FloatLiteral(c.init), ";\n");
  for (size_t i = 0; i < c.axes.size(); ++i) {
    absl::StrAppend(&body, OutPosition(c.axes[i], i, "o"));
  }
  for (size_t i = 0; i < c.axes.size(); ++i) {
    absl::StrAppend(&body, TapLoop(c.axes[i], i, absl::StrCat("s", i)));
  }
  absl::StrAppend(&body, "      const float v = operand[",
                  Last("x", c.axes.size()), "];\n",
                  c.reducer == PoolingConfig::Reducer::kAdd
                      ? "      acc = acc + v;\n"
                      : "      acc = (v > acc || v != v) ? v : acc;\n",
                  Close(c.axes.size()), "    out[o] = acc;");
  return body;
}

const char* KeepsOperator(PoolingConfig::Select select) {
  switch (select) {
    case PoolingConfig::Select::kGe:
      return ">=";
    case PoolingConfig::Select::kGt:
      return ">";
    case PoolingConfig::Select::kLe:
      return "<=";
    case PoolingConfig::Select::kLt:
      return "<";
  }
  return ">=";
}

// `selected`: the operand offset the window at s<i> selects, the first
// element kept against each later one as XLA does (taps on padding
// skipped).
std::string SelectInWindow(const PoolingConfig& c) {
  const size_t n = c.axes.size();
  std::string code = "    xl_index selected = -1;\n";
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&code, TapLoop(c.axes[i], i, absl::StrCat("s", i)));
  }
  absl::StrAppend(&code, "      const xl_index at = ", Last("x", n), ";\n",
                  "      if (selected < 0 || !(operand[selected] ",
                  KeepsOperator(c.select), " operand[at])) selected = at;\n",
                  Close(n));
  return code;
}

// Thread o owns result element o: for each window covering it (windows
// u<i> along each axis, row-major), the window's selection is recomputed
// and, when it is o, the window's source element added.
std::string SelectAndScatterBody(const PoolingConfig& c) {
  std::string body =
      absl::StrCat("    float acc = ", FloatLiteral(c.init), ";\n");
  const size_t n = c.axes.size();
  for (size_t i = 0; i < n; ++i) {
    const WindowedAxis& a = c.axes[i];
    absl::StrAppend(
        &body, "    const xl_index q", i, " = (o / ",
        IndexConstant(a.base_stride), ") % ", IndexConstant(a.base_size), " + ",
        IndexConstant(a.pad_low), ";\n", "    const xl_index lo", i, " = q", i,
        " < ", IndexConstant(a.window), " ? 0 : (q", i, " - ",
        IndexConstant(a.window), ") / ", IndexConstant(a.stride), " + 1;\n",
        "    const xl_index hi", i, " = q", i, " / ", IndexConstant(a.stride),
        " < ", IndexConstant(a.out_size - 1), " ? q", i, " / ",
        IndexConstant(a.stride), " : ", IndexConstant(a.out_size - 1), ";\n");
  }
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&body, "    for (xl_index s", i, " = lo", i, "; s", i,
                    " <= hi", i, "; ++s", i, ") {\n");
  }
  absl::StrAppend(&body, SelectInWindow(c),
                  "    if (selected == o) acc = acc + source[(xl_index)0");
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&body, " + s", i, " * ",
                    IndexConstant(c.axes[i].out_stride));
  }
  absl::StrAppend(&body, "];\n", Close(n), "    out[o] = acc;");
  return body;
}

// The windows of a pooling config: select-and-scatter's source elements.
int64_t WindowCount(const PoolingConfig& c) {
  int64_t windows = 1;
  for (const WindowedAxis& axis : c.axes) windows *= axis.out_size;
  return windows;
}

// The operand, the result, or the windows (select-and-scatter's source).
int64_t LargestPoolingArray(const PoolingConfig& c) {
  return std::max({c.operand_elements, c.out_elements, WindowCount(c)});
}

// Whether select-and-scatter's windows tile its operand exactly (each
// element in one window: the usual max-pool gradient, stride = window, no
// padding or dilation): then one thread per window writes its elements.
bool WindowsTileOperand(const PoolingConfig& c) {
  for (const WindowedAxis& a : c.axes) {
    if (a.stride != a.window || a.pad_low != 0 || a.base_dilation != 1 ||
        a.window_dilation != 1 || a.out_size * a.window != a.base_size) {
      return false;
    }
  }
  return true;
}

// Thread o owns window o (WindowsTileOperand): it selects as the gather
// form does (the first element kept against each later one) and writes
// each of its elements: init plus the source element to the selected
// one, init to the rest, the same sums the gather form computes.
std::string TiledSelectAndScatterBody(const PoolingConfig& c) {
  const size_t n = c.axes.size();
  std::string body;
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&body, OutPosition(c.axes[i], i, "o"));
  }
  absl::StrAppend(&body, SelectInWindow(c),
                  "    const float init = ", FloatLiteral(c.init),
                  ";\n    const float selected_value = init + source[o];\n");
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&body, TapLoop(c.axes[i], i, absl::StrCat("s", i)));
  }
  absl::StrAppend(&body, "      const xl_index at = ", Last("x", n), ";\n",
                  "      out[at] = at == selected ? selected_value : init;\n",
                  Close(n));
  return body;
}

se::KernelSpec Spec(const std::string& name, int arity, std::string source,
                    se::HostKernelFn host_fn) {
  se::KernelSpec spec;
  spec.name = name;
  spec.arity = arity;
  spec.cuda_source = std::move(source);
  spec.host_fn = std::move(host_fn);
  spec.waits_for_producers = true;  // XL_AWAIT_PRODUCERS().
  return spec;
}

}  // namespace

se::KernelSpec EmitConvolutionKernel(const ConvolutionConfig& config,
                                     const std::string& name) {
  VLOG(1) << "emitted convolution kernel " << name << ": " << config.ToString();
  if (config.gemm.tiled) {
    return Spec(name, 3, ConvolutionGemmSource(config, name),
                config.gemm.splits > 1 ? ConvolutionPartialsHostKernel(config)
                                       : ConvolutionHostKernel(config));
  }
  return Spec(name, 3,
              Source("convolution", config.ToString(), name,
                     "const float* __restrict__ lhs, const float* __restrict__ "
                     "rhs, float* __restrict__ out",
                     config.out_elements,
                     std::max({config.lhs_elements, config.rhs_elements,
                               config.out_elements}),
                     ConvolutionBody(config)),
              ConvolutionHostKernel(config));
}

namespace {

std::string SplitSumSource(const ConvolutionConfig& config,
                           const std::string& name,
                           const EpilogueSource* epilogue) {
  CHECK_GT(config.gemm.splits, 1) << config.ToString();
  const ConvolutionSplitSumSource sum = ConvolutionSplitSum(config, epilogue);
  return Source("convolution split-K sum", config.ToString(), name,
                absl::StrCat("const float* __restrict__ scratch",
                             epilogue == nullptr ? ", float* __restrict__ out"
                                                 : epilogue->parameters),
                config.gemm.groups * config.gemm.m * config.gemm.n,
                std::max(config.gemm.ScratchElements(), config.out_elements),
                sum.body, sum.definitions);
}

}  // namespace

se::KernelSpec EmitConvolutionSplitSumKernel(const ConvolutionConfig& config,
                                             const std::string& name) {
  return Spec(name, 2, SplitSumSource(config, name, /*epilogue=*/nullptr),
              ConvolutionSplitSumHostKernel(config));
}

se::KernelSpec EmitReduceWindowKernel(const PoolingConfig& config,
                                      const std::string& name) {
  VLOG(1) << "emitted reduce-window kernel " << name << ": "
          << config.ToString();
  return Spec(name, 2,
              Source("reduce-window", config.ToString(), name,
                     "const float* __restrict__ operand, float* __restrict__ "
                     "out",
                     config.out_elements, LargestPoolingArray(config),
                     ReduceWindowBody(config)),
              ReduceWindowHostKernel(config));
}

se::KernelSpec EmitSelectAndScatterKernel(const PoolingConfig& config,
                                          const std::string& name) {
  VLOG(1) << "emitted select-and-scatter kernel " << name << ": "
          << config.ToString();
  const bool tiled = WindowsTileOperand(config);
  return Spec(name, 3,
              Source(tiled ? "select-and-scatter (one window per thread)"
                           : "select-and-scatter",
                     config.ToString(), name,
                     "const float* __restrict__ operand, const float* "
                     "__restrict__ source, float* __restrict__ out",
                     tiled ? WindowCount(config) : config.out_elements,
                     LargestPoolingArray(config),
                     tiled ? TiledSelectAndScatterBody(config)
                           : SelectAndScatterBody(config)),
              SelectAndScatterHostKernel(config));
}

namespace {

// Operand, result and scratch positions of a two-operand op's buffers.
constexpr int kLhs = 0, kRhs = 1, kResult = 2, kScratch = 3;

std::vector<WindowedKernel> ConvolutionKernels(const ConvolutionConfig& config,
                                               const std::string& name) {
  const ConvolutionGemm& gemm = config.gemm;
  if (!gemm.tiled) {
    return {{EmitConvolutionKernel(config, name),
             WindowedLaunchDimensions(config.out_elements),
             {kLhs, kRhs, kResult}}};
  }
  if (gemm.splits == 1) {
    return {{EmitConvolutionKernel(config, name),
             ConvolutionGemmLaunchDimensions(config),
             {kLhs, kRhs, kResult}}};
  }
  return {{EmitConvolutionKernel(config, name),
           ConvolutionGemmLaunchDimensions(config),
           {kLhs, kRhs, kScratch}},
          {EmitConvolutionSplitSumKernel(config, absl::StrCat(name, "_sum")),
           WindowedLaunchDimensions(gemm.groups * gemm.m * gemm.n),
           {kScratch, kResult}}};
}

}  // namespace

absl::StatusOr<std::vector<WindowedKernel>> EmitWindowedKernels(
    const HloInstruction& instr, const std::string& name) {
  if (instr.opcode() == HloOpcode::kConvolution) {
    ASSIGN_OR_RETURN(ConvolutionConfig config, ConvolutionConfigFor(instr));
    return ConvolutionKernels(config, name);
  }
  ASSIGN_OR_RETURN(PoolingConfig config, PoolingConfigFor(instr));
  WindowedKernel kernel;
  kernel.spec = instr.opcode() == HloOpcode::kSelectAndScatter
                    ? EmitSelectAndScatterKernel(config, name)
                    : EmitReduceWindowKernel(config, name);
  kernel.launch_dimensions =
      WindowedLaunchDimensions(instr.opcode() == HloOpcode::kSelectAndScatter &&
                                       WindowsTileOperand(config)
                                   ? WindowCount(config)
                                   : config.out_elements);
  // reduce-window reads its operand (the init is baked in); select-and-
  // scatter its operand and source.
  const int arrays = instr.opcode() == HloOpcode::kSelectAndScatter ? 2 : 1;
  for (int i = 0; i <= arrays; ++i) kernel.arguments.push_back(i);
  std::vector<WindowedKernel> kernels;
  kernels.push_back(std::move(kernel));
  return kernels;
}

bool TakesConvolutionEpilogue(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kConvolution) return false;
  // ConvolutionConfigFor takes f32 only, which the epilogue needs.
  absl::StatusOr<ConvolutionConfig> config = ConvolutionConfigFor(instr);
  return config.ok() && config->gemm.tiled;
}

absl::StatusOr<std::vector<EmittedKernel>> EmitConvolutionWithEpilogue(
    const HloInstruction& instr, std::shared_ptr<const KernelProgram> epilogue,
    const BufferAllocation::Slice& lhs, const BufferAllocation::Slice& rhs,
    const BufferAllocation::Slice* scratch,
    absl::Span<const BufferAllocation::Slice> inputs,
    absl::Span<const BufferAllocation::Slice> outputs,
    const std::string& name) {
  ASSIGN_OR_RETURN(ConvolutionConfig config, ConvolutionConfigFor(instr));
  CHECK(config.gemm.tiled) << name << ": " << config.ToString();
  const bool split = config.gemm.splits > 1;
  CHECK(!split || scratch != nullptr) << name << ": split-K needs its scratch";
  std::vector<EmittedKernel> kernels;
  ProductKernel product;
  product.product_elements = config.out_elements;
  if (split) {
    // The partial sums as usual; the epilogue takes the sum of the splits.
    EmittedKernel partials;
    partials.spec = EmitConvolutionKernel(config, name);
    partials.launch_dimensions = ConvolutionGemmLaunchDimensions(config);
    partials.arguments = {lhs, rhs, *scratch};
    partials.written = {false, false, true};
    kernels.push_back(std::move(partials));
    const std::string sum = absl::StrCat(name, "_sum");
    product.operand_names = {"scratch"};
    product.operands = {*scratch};
    product.source = [config, sum](const EpilogueSource& source) {
      return SplitSumSource(config, sum, &source);
    };
    product.host_product = ConvolutionSplitSumHostKernel(config);
    product.launch_dimensions = WindowedLaunchDimensions(
        config.gemm.groups * config.gemm.m * config.gemm.n);
    kernels.push_back(EmitProductWithEpilogue(product, std::move(epilogue),
                                              inputs, outputs, sum));
    return kernels;
  }
  product.operand_names = {"lhs", "rhs"};
  product.operands = {lhs, rhs};
  product.source = [config, name](const EpilogueSource& source) {
    return ConvolutionGemmSource(config, name, &source);
  };
  product.host_product = ConvolutionHostKernel(config);
  product.launch_dimensions = ConvolutionGemmLaunchDimensions(config);
  kernels.push_back(EmitProductWithEpilogue(product, std::move(epilogue),
                                            inputs, outputs, name));
  return kernels;
}

absl::StatusOr<int64_t> WindowedScratchBytes(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kConvolution) {
    ASSIGN_OR_RETURN(ConvolutionConfig config, ConvolutionConfigFor(instr));
    return config.gemm.ScratchElements() * int64_t{sizeof(float)};
  }
  RETURN_IF_ERROR(PoolingConfigFor(instr).status());
  return 0;
}

se::LaunchDimensions WindowedLaunchDimensions(int64_t out_elements) {
  // The grid-stride loop covers the rest beyond 65535 blocks.
  const int64_t blocks =
      std::clamp<int64_t>((out_elements + 255) / 256, 1, 65535);
  return se::LaunchDimensions(static_cast<uint32_t>(blocks), 256);
}

}  // namespace xla_lite::gpu
