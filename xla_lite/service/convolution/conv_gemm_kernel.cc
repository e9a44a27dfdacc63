#include "xla_lite/service/convolution/conv_gemm_kernel.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"

namespace xla_lite::gpu {
namespace {

// The emitted gemm's main loop (gemm_kernel_source.cc) over one group and
// one split of the contraction per z, its global loads one pass ahead of
// the multiplications. The lhs tile's rows keep their batch offset and
// window origins in registers for the whole contraction, so a pass only
// splits k into its taps and input feature. Indices are int:
// ChooseConvolutionGemm tiles only convolutions whose indices fit.
// Two blocks per multiprocessor cap a thread at 128 registers: left
// free, ptxas gave the 8x4 blocks with vector stores 155, one block per
// multiprocessor, and cnn_cifar's step took 1,182 us against 1,072 us
// capped (H100, one run).
constexpr char kKernelTemplate[] =
    R"(// Emitted convolution (tiled implicit gemm): $CONFIG
$AWAIT_PRODUCERS
$FLOAT16
$FUNCTIONS
$DEFINITIONS
extern "C" __global__ void __launch_bounds__(256, 2)
$ENTRY(const float* __restrict__ lhs,
    const float* __restrict__ rhs$OUTPUT_PARAMETERS) {
  constexpr int kM = $M, kN = $N, kK = $K, kGroups = $GROUPS;
  constexpr int kSplits = $SPLITS, kSplitK = $SPLIT_K;
  constexpr int kTileM = $TILE_M, kTileN = $TILE_N, kTileK = $TILE_K;
  constexpr int kRowsPerThread = $ROWS_PER_THREAD;
  constexpr int kColsPerThread = $COLS_PER_THREAD;
  constexpr int kThreadsX = 16, kThreadsY = 16;
  constexpr int kThreads = kThreadsX * kThreadsY;
  constexpr int kTilesM = (kM + kTileM - 1) / kTileM;
  constexpr int kTilesN = (kN + kTileN - 1) / kTileN;
  constexpr int kLhsSteps = (kTileM * kTileK + kThreads - 1) / kThreads;
  constexpr int kRhsSteps = (kTileN * kTileK + kThreads - 1) / kThreads;
  XL_AWAIT_PRODUCERS();
  // Rows padded by 4 floats: 16-byte aligned for the vector loads of the
  // product, and off one bank for the staging stores.
  __shared__ __align__(16) float lhs_tile[kTileK][kTileM + 4];
  __shared__ __align__(16) float rhs_tile[kTileK][kTileN + 4];

  if (blockIdx.x >= kTilesN) return;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kThreadsX + tx;
  const int col0 = blockIdx.x * kTileN;
  // Grids are capped at 65535 along y and z; blocks loop over the rest.
  for (int z = blockIdx.z; z < kGroups * kSplits; z += gridDim.z) {
    const int group = z / kSplits, split = z % kSplits;
    const int k_begin = split * kSplitK;
    const int k_end = kK - k_begin < kSplitK ? kK : k_begin + kSplitK;
    const int f0 = group * kN;
    const float* lhs_group = lhs + $LHS_GROUP_OFFSET;
    const float* rhs_group = rhs + f0 * $RHS_OUTPUT_STRIDE;
    for (int tile_m = blockIdx.y; tile_m < kTilesM; tile_m += gridDim.y) {
      const int row0 = tile_m * kTileM;
      int row_lhs[kLhsSteps];
      int row_origin[kLhsSteps][$AXES];
      bool row_valid[kLhsSteps];
#pragma unroll
      for (int s = 0; s < kLhsSteps; ++s) {
        const int e = tid + s * kThreads;
$LHS_INDEX
        const int row = row0 + i;
        row_valid[s] = e < kTileM * kTileK && row < kM;
        row_lhs[s] = xl_row_lhs(row_valid[s] ? row : 0, row_origin[s]);
      }
      float acc[kRowsPerThread][kColsPerThread];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) acc[r][c] = 0.0f;
      }
      float lhs_staged[kLhsSteps], rhs_staged[kRhsSteps];
      {
        const int next = k_begin;
$STAGE
      }
      for (int k0 = k_begin; k0 < k_end; k0 += kTileK) {
#pragma unroll
        for (int s = 0; s < kLhsSteps; ++s) {
          const int e = tid + s * kThreads;
$LHS_INDEX
          if (e < kTileM * kTileK) lhs_tile[kk][i] = lhs_staged[s];
        }
#pragma unroll
        for (int s = 0; s < kRhsSteps; ++s) {
          const int e = tid + s * kThreads;
$RHS_INDEX
          if (e < kTileN * kTileK) rhs_tile[kk][j] = rhs_staged[s];
        }
        __syncthreads();
        // The next pass's loads are in flight while this one multiplies.
        if (k0 + kTileK < k_end) {
          const int next = k0 + kTileK;
$STAGE
        }
$TILE_PRODUCT
        __syncthreads();
      }
$STORE_TILE
    }
  }
}
)";

// Loads the contraction's [next, next + kTileK) into registers.
constexpr char kStageTemplate[] = R"(#pragma unroll
        for (int s = 0; s < kLhsSteps; ++s) {
          const int e = tid + s * kThreads;
$LHS_INDEX
          const int k = next + kk;
          lhs_staged[s] = row_valid[s] && k < k_end
                              ? xl_load_lhs(lhs_group, row_lhs[s],
                                            row_origin[s], k)
                              : 0.0f;
        }
#pragma unroll
        for (int s = 0; s < kRhsSteps; ++s) {
          const int e = tid + s * kThreads;
$RHS_INDEX
          const int k = next + kk, col = col0 + j;
          rhs_staged[s] = e < kTileN * kTileK && k < k_end && col < kN
                              ? xl_load_rhs(rhs_group, k, col)
                              : 0.0f;
        })";

// One component of a gemm row (ConvolutionGemm::row_axes).
struct RowAxis {
  int64_t size;
  int64_t out_stride;
  const WindowedAxis* spatial;  // Null for the batch.
  int index;                    // Spatial axis index.
};

RowAxis RowAxisOf(const ConvolutionConfig& c, int axis) {
  if (axis < 0) return {c.out_batch, c.out_batch_stride, nullptr, -1};
  const WindowedAxis& a = c.spatial[axis];
  return {a.out_size, a.out_stride, &a, axis};
}

// Splits `index` (a row, or the taps of k) into its components, innermost
// first: `value(i)` names component i, `sizes` are outermost first.
std::string Decompose(const std::string& index,
                      const std::vector<int64_t>& sizes,
                      const std::vector<std::string>& values) {
  std::string code = absl::StrCat("  int rest = ", index, ";\n");
  for (size_t i = sizes.size(); i-- > 0;) {
    if (i == 0) {
      absl::StrAppend(&code, "  const int ", values[i], " = rest;\n");
    } else {
      absl::StrAppend(&code, "  const int ", values[i], " = rest % ", sizes[i],
                      ";\n  rest /= ", sizes[i], ";\n");
    }
  }
  if (sizes.empty()) absl::StrAppend(&code, "  (void)rest;\n");
  return code;
}

// xl_row_lhs(row, origin): the lhs offset of row's batch, and along each
// axis its window's origin (output position x stride - low padding).
// xl_row_output(row): the row's offset in the output, features aside.
std::string RowFunctions(const ConvolutionConfig& c) {
  std::vector<int64_t> sizes;
  std::vector<std::string> values;
  for (size_t i = 0; i < c.gemm.row_axes.size(); ++i) {
    sizes.push_back(RowAxisOf(c, c.gemm.row_axes[i]).size);
    values.push_back(absl::StrCat("v", i));
  }
  const std::string decompose = Decompose("row", sizes, values);
  std::string lhs = absl::StrCat(
      "__device__ __forceinline__ int xl_row_lhs(int row, int* origin) {\n",
      decompose, "  int offset = 0;\n");
  std::string out =
      absl::StrCat("__device__ __forceinline__ int xl_row_output(int row) {\n",
                   decompose, "  int offset = 0;\n");
  for (size_t i = 0; i < values.size(); ++i) {
    const RowAxis axis = RowAxisOf(c, c.gemm.row_axes[i]);
    if (axis.spatial == nullptr) {
      absl::StrAppend(&lhs, "  offset += ", values[i], " * ",
                      c.lhs_batch_stride, ";\n");
    } else {
      absl::StrAppend(&lhs, "  origin[", axis.index, "] = ", values[i], " * ",
                      axis.spatial->stride, " - ", axis.spatial->pad_low,
                      ";\n");
    }
    absl::StrAppend(&out, "  offset += ", values[i], " * ", axis.out_stride,
                    ";\n");
  }
  absl::StrAppend(&lhs, "  return offset;\n}\n");
  absl::StrAppend(&out, "  return offset;\n}\n");
  return absl::StrCat(lhs, out);
}

// k's input feature c and taps t<i>.
std::string SplitK(const ConvolutionConfig& c) {
  std::vector<int64_t> sizes;
  std::vector<std::string> values;
  for (size_t i = 0; i < c.spatial.size(); ++i) {
    sizes.push_back(c.spatial[i].window);
    values.push_back(absl::StrCat("t", i));
  }
  return absl::StrCat(
      "  const int c = k % ", c.kernel_inputs, ";\n",
      Decompose(absl::StrCat("k / ", c.kernel_inputs), sizes, values));
}

// xl_load_lhs(lhs, offset, origin, k) and xl_load_rhs(rhs, k, col): the
// gemm's operand elements; lhs taps on padding or holes read 0.
std::string LoadFunctions(const ConvolutionConfig& c) {
  std::string lhs = absl::StrCat(
      "__device__ __forceinline__ float xl_load_lhs(\n"
      "    const float* __restrict__ lhs, int offset, const int* origin, "
      "int k) {\n",
      SplitK(c), "  offset += c * ", c.lhs_feature_stride, ";\n");
  std::string rhs = absl::StrCat(
      "__device__ __forceinline__ float xl_load_rhs(\n"
      "    const float* __restrict__ rhs, int k, int col) {\n",
      SplitK(c), "  int offset = col * ", c.rhs_output_stride, " + c * ",
      c.rhs_input_stride, ";\n");
  for (size_t i = 0; i < c.spatial.size(); ++i) {
    const WindowedAxis& a = c.spatial[i];
    const int64_t dilated = (a.base_size - 1) * a.base_dilation + 1;
    absl::StrAppend(&lhs, "  const int p", i, " = origin[", i, "] + t", i,
                    " * ", a.window_dilation, ";\n  if (p", i, " < 0 || p", i,
                    " >= ", dilated);
    if (a.base_dilation != 1) {
      absl::StrAppend(&lhs, " || p", i, " % ", a.base_dilation, " != 0");
    }
    absl::StrAppend(&lhs, ") return 0.0f;\n  offset += ",
                    a.base_dilation == 1
                        ? absl::StrCat("p", i)
                        : absl::StrCat("(p", i, " / ", a.base_dilation, ")"),
                    " * ", a.base_stride, ";\n");
    absl::StrAppend(&rhs, "  offset += ",
                    a.reversal ? absl::StrCat("(", a.window - 1, " - t", i, ")")
                               : absl::StrCat("t", i),
                    " * ", a.kernel_stride, ";\n");
  }
  absl::StrAppend(&lhs, "  return lhs[offset];\n}\n");
  absl::StrAppend(&rhs, "  return rhs[offset];\n}\n");
  return absl::StrCat(lhs, rhs);
}

// Which tile element thread element `e` stages: `fast` varies fastest with
// `e`, so that neighbouring threads read neighbouring addresses where the
// operand allows.
std::string IndexAlong(const char* fast, const char* slow, const char* tile) {
  return absl::StrCat("          const int ", fast, " = e % ", tile, ", ", slow,
                      " = e / ", tile, ";");
}

// Whether consecutive gemm rows lie closer in the lhs than consecutive
// input features (the filter gradient's f01b lhs).
bool LhsRowsContiguous(const ConvolutionConfig& c) {
  const int inner = c.gemm.row_axes.back();
  const int64_t row_step =
      inner < 0 ? c.lhs_batch_stride
                : c.spatial[inner].base_stride * c.spatial[inner].stride;
  return row_step < c.lhs_feature_stride;
}

// The index of the result at (row, feature) in the output.
std::string OutputIndex(const ConvolutionConfig& c,
                        const std::string& feature) {
  return absl::StrCat("xl_row_output(row) + (", feature, ") * ",
                      c.out_feature_stride);
}

// Stores `value` into out at `index`, or hands it to the epilogue there.
std::string StoreElement(const std::string& index, const std::string& value,
                         const EpilogueSource* epilogue) {
  if (epilogue == nullptr) return absl::StrCat("out[", index, "] = ", value);
  return absl::StrCat(epilogue->function, "(", index, ", ", value,
                      epilogue->arguments, ")");
}

// Whether each thread's run of columns is adjacent in memory and aligned
// to its length, so that a row of its register block is one vector store.
// A warp's stores then fill whole sectors; element by element, a run of 4
// columns leaves each store instruction a quarter of every sector it
// touches. On cnn_cifar's largest forward convolution (with the bias and
// ReLU epilogue storing two outputs) that was 125 us against 105 us with
// vector stores (H100, one run).
bool StoresRuns(const ConvolutionConfig& c) {
  const int64_t cols = c.gemm.tiling.cols_per_thread;
  return (cols == 2 || cols == 4) && c.gemm.n % cols == 0 &&
         (c.gemm.splits > 1 || c.out_feature_stride == 1);
}

// Stores the register block, into out (the scratch for split-K) or
// through the epilogue.
std::string StoreTile(const ConvolutionConfig& c,
                      const EpilogueSource* epilogue) {
  const std::string index =
      c.gemm.splits > 1 ? "((split * kGroups + group) * kM + row) * kN + col"
                        : OutputIndex(c, "f0 + col");
  if (StoresRuns(c)) {
    const std::string store =
        epilogue == nullptr
            ? absl::StrCat("xl_store_run<kColsPerThread>(out + ", index,
                           ", acc[r])")
            : absl::StrCat(epilogue->function, "_run<kColsPerThread>(", index,
                           ", acc[r]", epilogue->arguments, ")");
    return absl::StrCat(R"(#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const int row = row0 + ty * kRowsPerThread + r;
        const int col = col0 + tx * kColsPerThread;
        if (row < kM && col < kN) )",
                        store, ";\n      }");
  }
  return absl::StrCat(R"(#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) {
          const int row = row0 + ty * kRowsPerThread + r;
          const int col = col0 + tx * kColsPerThread + c;
          if (row < kM && col < kN) )",
                      StoreElement(index, "acc[r][c]", epilogue),
                      ";\n        }\n      }");
}

}  // namespace

std::string ConvolutionGemmSource(const ConvolutionConfig& c,
                                  const std::string& entry,
                                  const EpilogueSource* epilogue) {
  const ConvolutionGemm& g = c.gemm;
  CHECK(g.tiled && g.tiling.IsValid()) << c.ToString();
  CHECK(epilogue == nullptr || g.splits == 1)
      << "split-K takes its epilogue in the sum: " << c.ToString();
  const std::string lhs_group_offset = absl::StrCat(
      "(f0 / ", c.per_batch_group, ") * ", c.out_batch * c.lhs_batch_stride,
      " + (f0 / ", c.per_feature_group, ") * ",
      c.kernel_inputs * c.lhs_feature_stride);
  // StrReplaceAll makes one pass: the staging code goes in first.
  const std::string text =
      absl::StrReplaceAll(kKernelTemplate, {{"$STAGE", kStageTemplate}});
  return absl::StrReplaceAll(
      text,
      {
          {"$CONFIG", c.ToString()},
          {"$AWAIT_PRODUCERS", kAwaitProducersSource},
          {"$TILE_PRODUCT", kGemmTileProductSource},
          {"$FLOAT16", kFloat16DeviceSource},
          {"$FUNCTIONS", absl::StrCat(kLoadRunSource, kStoreRunSource,
                                      RowFunctions(c), LoadFunctions(c))},
          {"$ENTRY", entry},
          {"$M", absl::StrCat(g.m)},
          {"$N", absl::StrCat(g.n)},
          {"$K", absl::StrCat(g.k)},
          {"$GROUPS", absl::StrCat(g.groups)},
          {"$SPLITS", absl::StrCat(g.splits)},
          {"$SPLIT_K", absl::StrCat(g.splits > 1 ? g.split_k : g.k)},
          {"$TILE_M", absl::StrCat(g.tiling.tile_m())},
          {"$TILE_N", absl::StrCat(g.tiling.tile_n())},
          {"$TILE_K", absl::StrCat(g.tiling.tile_k)},
          {"$ROWS_PER_THREAD", absl::StrCat(g.tiling.rows_per_thread)},
          {"$COLS_PER_THREAD", absl::StrCat(g.tiling.cols_per_thread)},
          {"$LHS_GROUP_OFFSET", lhs_group_offset},
          {"$RHS_OUTPUT_STRIDE", absl::StrCat(c.rhs_output_stride)},
          {"$AXES", absl::StrCat(std::max<size_t>(c.spatial.size(), 1))},
          {"$LHS_INDEX", LhsRowsContiguous(c)
                             ? IndexAlong("i", "kk", "kTileM")
                             : IndexAlong("kk", "i", "kTileK")},
          {"$RHS_INDEX", c.rhs_output_stride < c.rhs_input_stride
                             ? IndexAlong("j", "kk", "kTileN")
                             : IndexAlong("kk", "j", "kTileK")},
          {"$STORE_TILE", StoreTile(c, epilogue)},
          {"$DEFINITIONS", epilogue == nullptr ? "" : epilogue->definitions},
          {"$OUTPUT_PARAMETERS", epilogue == nullptr
                                     ? ", float* __restrict__ out"
                                     : epilogue->parameters},
      });
}

se::LaunchDimensions ConvolutionGemmLaunchDimensions(
    const ConvolutionConfig& c) {
  GemmConfig shape;
  shape.m = c.gemm.m;
  shape.n = c.gemm.n;
  shape.k = c.gemm.k;
  shape.batch = c.gemm.groups * c.gemm.splits;
  return GemmLaunchDimensionsFor(shape, c.gemm.tiling);
}

ConvolutionSplitSumSource ConvolutionSplitSum(const ConvolutionConfig& c,
                                              const EpilogueSource* epilogue) {
  const ConvolutionGemm& g = c.gemm;
  ConvolutionSplitSumSource source;
  source.definitions = RowFunctions(c);
  if (epilogue != nullptr) {
    absl::StrAppend(&source.definitions, epilogue->definitions);
  }
  const int64_t mn = g.m * g.n;
  source.body = absl::StrCat(
      "    const int col = (int)(o % ", g.n, "), row = (int)(o / ", g.n, " % ",
      g.m, "), group = (int)(o / ", mn, ");\n", "    float acc = 0.0f;\n",
      "    for (int s = 0; s < ", g.splits,
      "; ++s) acc = acc + scratch[(long long)s * ", g.groups * mn,
      " + o];\n    ",
      StoreElement(OutputIndex(c, absl::StrCat("group * ", g.n, " + col")),
                   "acc", epilogue),
      ";");
  return source;
}

}  // namespace xla_lite::gpu
