#include "xla_lite/service/convolution/windowed_config.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/hlo_computation.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {
namespace {

absl::Status Unsupported(const HloInstruction& instr, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "instruction ", instr.name(), ": ", HloOpcodeString(instr.opcode()),
      " is not supported by the xla_lite compiler (", why, ")"));
}

absl::Status CheckF32(const HloInstruction& instr) {
  for (const HloInstruction* operand : instr.operands()) {
    if (operand->shape().element_type() != PrimitiveType::F32) {
      return Unsupported(instr, "the emitted kernels take f32 only");
    }
  }
  if (instr.shape().element_type() != PrimitiveType::F32) {
    return Unsupported(instr, "the emitted kernels take f32 only");
  }
  return absl::OkStatus();
}

WindowedAxis AxisFor(const WindowDimension& w, int64_t base_size,
                     int64_t out_size) {
  WindowedAxis axis;
  axis.out_size = out_size;
  axis.base_size = base_size;
  axis.window = w.size;
  axis.stride = w.stride;
  axis.pad_low = w.padding_low;
  axis.base_dilation = w.base_dilation;
  axis.window_dilation = w.window_dilation;
  axis.reversal = w.window_reversal;
  return axis;
}

// The binary op of a (T, T) -> T or -> pred computation applied to its
// parameters in order, or null.
const HloInstruction* ParameterOp(const HloComputation* computation) {
  if (computation == nullptr || computation->num_parameters() != 2) {
    return nullptr;
  }
  const HloInstruction* root = computation->root_instruction();
  if (root == nullptr || root->operand_count() != 2 ||
      root->operand(0) != computation->parameter_instruction(0) ||
      root->operand(1) != computation->parameter_instruction(1)) {
    return nullptr;
  }
  return root;
}

absl::StatusOr<double> ConstantInit(const HloInstruction& instr,
                                    int64_t operand) {
  const HloInstruction* init = instr.operand(operand);
  if (init->opcode() != HloOpcode::kConstant) {
    return Unsupported(instr, "its init value must be a constant");
  }
  return init->literal().GetAsDouble(0);
}

std::string AxesString(const std::vector<WindowedAxis>& axes) {
  return absl::StrJoin(axes, " ", [](std::string* out, const WindowedAxis& a) {
    absl::StrAppend(out, "[", a.base_size, "->", a.out_size, " w", a.window,
                    " s", a.stride, " p", a.pad_low, " d", a.base_dilation,
                    "/", a.window_dilation, a.reversal ? " rev" : "", "]");
  });
}

// Split-K pays for its second pass and scratch only for long contractions
// (filter gradients: batch x spatial), each split keeping a few tiles of k.
constexpr int64_t kMinSplitK = 1024;
constexpr int64_t kMinSplitLength = 256;
// Blocks below which a large GPU (132 multiprocessors on an H100) idles,
// as for the emitted gemm; split-K aims at two blocks per multiprocessor.
constexpr int64_t kMinBlocks = 128;
constexpr int64_t kSplitTargetBlocks = 264;
// The tiled kernel's contraction step: all of a short contraction, else
// the emitted gemm's default, which keeps the staged registers few. Wide
// register blocks (over 16 accumulators) always take the default: their
// 128-row tiles would stage twice as many registers per pass.
constexpr int64_t kMaxWholeTileK = 32;
constexpr int kMaxWholeTileKAccumulators = 16;
// Rows go up to 8 per thread, columns to 4: a thread's columns are one
// vector load of the rhs tile, and 8 of them (two loads 32 bytes apart)
// conflict on shared-memory banks (the 8x8 filter gradient ran 25% slower
// than at 8x4 on an H100).
constexpr int kMaxColsPerThread = 4;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The smallest register block (1, 2, 4 or 8 per thread) whose 16 threads
// cover `size`, at most `limit`.
int FittedPerThread(int64_t size, int limit) {
  int per_thread = 1;
  while (per_thread < limit && GemmTiling::kThreadsX * per_thread < size) {
    per_thread *= 2;
  }
  return per_thread;
}

int64_t TileBlocks(const ConvolutionGemm& g) {
  return CeilDiv(g.m, g.tiling.tile_m()) * CeilDiv(g.n, g.tiling.tile_n()) *
         g.groups;
}

// The row components by decreasing lhs stride (the batch first on a tie).
std::vector<int> RowAxes(const ConvolutionConfig& c) {
  std::vector<int> axes = {-1};
  for (size_t i = 0; i < c.spatial.size(); ++i) axes.push_back(i);
  auto lhs_stride = [&](int axis) {
    return axis < 0 ? c.lhs_batch_stride : c.spatial[axis].base_stride;
  };
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) {
    return lhs_stride(a) > lhs_stride(b);
  });
  return axes;
}

// Whether every index the tiled kernel computes fits in int.
bool FitsInt(const ConvolutionConfig& c, const ConvolutionGemm& g) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  return c.lhs_elements <= kMax && c.rhs_elements <= kMax &&
         c.out_elements <= kMax && g.groups * g.m * g.n <= kMax &&
         g.k <= kMax / 2 && g.ScratchElements() <= kMax;
}

}  // namespace

std::string ConvolutionGemm::ToString() const {
  if (!tiled) return "untiled";
  return absl::StrCat("gemm ", groups, "x", m, "x", n, "x", k, " ",
                      tiling.ToString(), splits > 1
                                             ? absl::StrCat(" split-K ", splits,
                                                            "x", split_k)
                                             : "");
}

std::string ConvolutionConfig::ToString() const {
  return absl::StrCat("conv b", out_batch, " f", out_features, " c",
                      kernel_inputs, " groups ", out_features /
                      per_feature_group, "/", out_features / per_batch_group,
                      " ", AxesString(spatial), "; ", gemm.ToString());
}

ConvolutionGemm ChooseConvolutionGemm(const ConvolutionConfig& c) {
  ConvolutionGemm g;
  g.n = std::min(c.per_feature_group, c.per_batch_group);
  g.groups = g.n > 0 ? c.out_features / g.n : 0;
  g.m = c.out_batch;
  g.k = c.kernel_inputs;
  for (const WindowedAxis& axis : c.spatial) {
    g.m *= axis.out_size;
    g.k *= axis.window;
  }
  g.row_axes = RowAxes(c);
  if (g.n < ConvolutionGemm::kMinTiledFeatures || g.m <= 0 || g.k <= 0 ||
      !FitsInt(c, g)) {
    return g;
  }
  g.tiled = true;
  // Full register blocks where the sides allow, the splits making the
  // blocks a long contraction would otherwise lack.
  ConvolutionGemm split = g;
  split.tiling.rows_per_thread =
      FittedPerThread(g.m, GemmTiling::kMaxWidePerThread);
  split.tiling.cols_per_thread = FittedPerThread(g.n, kMaxColsPerThread);
  split.tiling.tile_k = GemmTiling::kDefaultTileK;
  const int64_t splits =
      std::min(CeilDiv(kSplitTargetBlocks, TileBlocks(split)),
               g.k / kMinSplitLength);
  if (g.k >= kMinSplitK && TileBlocks(split) < kMinBlocks && splits >= 2) {
    const int64_t tile_k = split.tiling.tile_k;
    split.split_k = CeilDiv(CeilDiv(g.k, splits), tile_k) * tile_k;
    split.splits = CeilDiv(g.k, split.split_k);
    if (split.splits > 1 && FitsInt(c, split)) return split;
  }
  GemmConfig shape;
  shape.m = g.m;
  shape.n = g.n;
  shape.k = g.k;
  shape.batch = g.groups;
  GemmTiling wide;
  wide.rows_per_thread = GemmTiling::kMaxWidePerThread;
  wide.cols_per_thread = kMaxColsPerThread;
  g.tiling = ChooseGemmTiling(shape, wide, GemmTiling::kMinConvolutionBlocks);
  g.tiling.rows_per_thread = FittedPerThread(g.m, g.tiling.rows_per_thread);
  g.tiling.cols_per_thread = FittedPerThread(g.n, g.tiling.cols_per_thread);
  const bool whole_k =
      g.k <= kMaxWholeTileK && g.tiling.rows_per_thread *
                                       g.tiling.cols_per_thread <=
                                   kMaxWholeTileKAccumulators;
  g.tiling.tile_k =
      static_cast<int>(whole_k ? g.k : GemmTiling::kDefaultTileK);
  return g;
}

std::string PoolingConfig::ToString() const {
  return absl::StrCat("pool ", reducer == Reducer::kAdd ? "add" : "max",
                      " init ", init, " ", AxesString(axes));
}

absl::StatusOr<ConvolutionConfig> ConvolutionConfigFor(
    const HloInstruction& conv) {
  RETURN_IF_ERROR(CheckF32(conv));
  const ConvolutionDimensionNumbers& d = conv.convolution_dimension_numbers();
  const Shape& lhs = conv.operand(0)->shape();
  const Shape& rhs = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  const std::vector<int64_t> ls = RowMajorStrides(lhs.dimensions()),
                             rs = RowMajorStrides(rhs.dimensions()),
                             os = RowMajorStrides(out.dimensions());
  ConvolutionConfig config;
  config.out_batch = out.dimensions(d.output_batch_dimension);
  config.out_features = out.dimensions(d.output_feature_dimension);
  config.kernel_inputs = rhs.dimensions(d.kernel_input_feature_dimension);
  config.per_feature_group = config.out_features / conv.feature_group_count();
  config.per_batch_group = config.out_features / conv.batch_group_count();
  config.lhs_batch_stride = ls[d.input_batch_dimension];
  config.lhs_feature_stride = ls[d.input_feature_dimension];
  config.rhs_input_stride = rs[d.kernel_input_feature_dimension];
  config.rhs_output_stride = rs[d.kernel_output_feature_dimension];
  config.out_batch_stride = os[d.output_batch_dimension];
  config.out_feature_stride = os[d.output_feature_dimension];
  for (size_t i = 0; i < d.input_spatial_dimensions.size(); ++i) {
    WindowedAxis axis =
        AxisFor(conv.window()[i], lhs.dimensions(d.input_spatial_dimensions[i]),
                out.dimensions(d.output_spatial_dimensions[i]));
    axis.base_stride = ls[d.input_spatial_dimensions[i]];
    axis.kernel_stride = rs[d.kernel_spatial_dimensions[i]];
    axis.out_stride = os[d.output_spatial_dimensions[i]];
    config.spatial.push_back(axis);
  }
  config.lhs_elements = lhs.ElementCount();
  config.rhs_elements = rhs.ElementCount();
  config.out_elements = out.ElementCount();
  config.gemm = ChooseConvolutionGemm(config);
  return config;
}

absl::StatusOr<PoolingConfig> PoolingConfigFor(const HloInstruction& pooling) {
  RETURN_IF_ERROR(CheckF32(pooling));
  const bool scatter = pooling.opcode() == HloOpcode::kSelectAndScatter;
  PoolingConfig config;
  ASSIGN_OR_RETURN(config.init, ConstantInit(pooling, scatter ? 2 : 1));
  const HloInstruction* combine = ParameterOp(pooling.to_apply());
  const HloOpcode combiner =
      combine == nullptr ? HloOpcode::kTuple : combine->opcode();
  if (combiner == HloOpcode::kMaximum && !scatter) {
    config.reducer = PoolingConfig::Reducer::kMax;
  } else if (combiner != HloOpcode::kAdd) {
    return Unsupported(pooling, scatter ? "scatter must be add"
                                        : "the reducer must be add or maximum");
  }
  if (scatter) {
    const HloInstruction* select = ParameterOp(pooling.select());
    if (select == nullptr || select->opcode() != HloOpcode::kCompare) {
      return Unsupported(pooling, "select must compare its parameters");
    }
    switch (select->comparison_direction()) {
      case ComparisonDirection::kGe:
        config.select = PoolingConfig::Select::kGe;
        break;
      case ComparisonDirection::kGt:
        config.select = PoolingConfig::Select::kGt;
        break;
      case ComparisonDirection::kLe:
        config.select = PoolingConfig::Select::kLe;
        break;
      case ComparisonDirection::kLt:
        config.select = PoolingConfig::Select::kLt;
        break;
      default:
        return Unsupported(pooling, "select must be GE, GT, LE or LT");
    }
  }
  const Shape& operand = pooling.operand(0)->shape();
  const Shape& windows = scatter ? pooling.operand(1)->shape() : pooling.shape();
  const std::vector<int64_t> bs = RowMajorStrides(operand.dimensions()),
                             ws = RowMajorStrides(windows.dimensions());
  for (int64_t i = 0; i < operand.rank(); ++i) {
    WindowedAxis axis = AxisFor(pooling.window()[i], operand.dimensions(i),
                                windows.dimensions(i));
    if (scatter && (axis.base_dilation != 1 || axis.window_dilation != 1)) {
      return Unsupported(pooling, "dilated select-and-scatter windows");
    }
    axis.base_stride = bs[i];
    axis.out_stride = ws[i];
    config.axes.push_back(axis);
  }
  config.operand_elements = operand.ElementCount();
  config.out_elements = pooling.shape().ElementCount();
  return config;
}

}  // namespace xla_lite::gpu
