#include "xla_lite/service/gemm/gemm_kernel_source.h"

#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"

namespace xla_lite::gpu {
namespace {

// One thread block computes a tile_m x tile_n tile of one batch's output,
// each thread a register block of adjacent rows and adjacent columns. Per
// pass of tile_k along k, the block stores the operand tiles it loaded
// into registers in shared memory (zero outside the matrices, so the edges
// need no other care), starts the loads of the next pass, and multiplies
// (kGemmTileProductSource), so a pass's loads are in flight during the
// previous pass's arithmetic. Tiles are stored k-major, rows padded by 4
// floats so that each thread's run starts 16-byte aligned. Each output
// element adds its products in increasing k, one fused multiply-add each;
// the host kernel rounds the multiply and the add apart, so the back ends
// agree to rounding, not bit for bit.
// Two blocks per multiprocessor cap a thread at 128 registers, as in the
// tiled convolution (conv_gemm_kernel.cc).
constexpr char kKernelTemplate[] = R"(// Emitted gemm: $CONFIG
// out = alpha * op(lhs) @ op(rhs) + beta * out, row-major; $TILING.
typedef $INPUT input_t;
typedef $OUTPUT output_t;
$AWAIT_PRODUCERS
$FLOAT16
$ELEMENTS
$LOAD_RUN
$MMA
$DEFINITIONS

extern "C" __global__ void __launch_bounds__(256, 2)
$ENTRY(const input_t* __restrict__ lhs,
    const input_t* __restrict__ rhs$OUTPUT_PARAMETERS) {
  constexpr long long kBatch = $BATCHLL, kM = $MLL, kN = $NLL, kK = $KLL;
  // Elements from one stored row of an operand to the next.
  constexpr long long kLhsLd = $LHS_LDLL, kRhsLd = $RHS_LDLL;
  constexpr int kTileM = $TILE_M, kTileN = $TILE_N, kTileK = $TILE_K;
  constexpr int kRowsPerThread = $ROWS_PER_THREAD;
  constexpr int kColsPerThread = $COLS_PER_THREAD;
  constexpr int kThreadsX = 16, kThreadsY = 16;
  constexpr int kThreads = kThreadsX * kThreadsY;
  constexpr long long kTilesM = (kM + kTileM - 1) / kTileM;
  constexpr long long kTilesN = (kN + kTileN - 1) / kTileN;
  constexpr int kLhsSteps = (kTileM * kTileK + kThreads - 1) / kThreads;
  constexpr int kRhsSteps = (kTileN * kTileK + kThreads - 1) / kThreads;
$SCALARS
  XL_AWAIT_PRODUCERS();
  __shared__ __align__(16) float lhs_tile[kTileK][kTileM + 4];
  __shared__ __align__(16) float rhs_tile[kTileK][kTileN + 4];

  if (blockIdx.x >= kTilesN) return;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * kThreadsX + tx;
  const long long col0 = (long long)blockIdx.x * kTileN;
  // Grids are capped at 65535 along y and z; blocks loop over the rest.
  for (long long batch = blockIdx.z; batch < kBatch; batch += gridDim.z) {
$BATCH_OFFSETS
    const input_t* lhs_batch = lhs + lhs_offset;
    const input_t* rhs_batch = rhs + rhs_offset;
    for (long long tile_m = blockIdx.y; tile_m < kTilesM; tile_m += gridDim.y) {
      const long long row0 = tile_m * kTileM;
      float acc[kRowsPerThread][kColsPerThread];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) acc[r][c] = 0.0f;
      }
      float lhs_staged[kLhsSteps], rhs_staged[kRhsSteps];
      {
        const long long next = 0;
$STAGE
      }
      for (long long k0 = 0; k0 < kK; k0 += kTileK) {
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
        if (k0 + kTileK < kK) {
          const long long next = k0 + kTileK;
$STAGE
        }
$TILE_PRODUCT
        __syncthreads();
      }
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const long long row = row0 + $ACC_ROW;
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) {
          const long long col = col0 + $ACC_COL;
          if (row < kM && col < kN) {
            const long long index = (batch * kM + row) * kN + col;
            float value = alpha * acc[r][c];
$BETA_TERM
            $STORE_RESULT;
          }
        }
      }
    }
  }
}
)";

// Products on tensor cores (sm_80 and up): each warp of the 64x64 tile
// takes 16 rows and 32 columns, four mma.sync products per step of
// XL_MMA_K along k, reading its fragments from the f32 tiles: bf16
// operands (which the tiles hold exactly) packed back into bf16 pairs,
// m16n8k16; f32 operands whose dot allows TF32 rounded to it as cuBLAS
// does (cvt.rna), m16n8k8. XL_MMA_FRAG(tile, kk, h, m) is the fragment
// register of column (A) or row (B) m holding half h of the step's k (the
// thread's k offset t = lane % 4 in scope). acc[r][c] is then the
// accumulator fragment's register r of column block c: row lane / 4 (+ 8
// for r >= 2), column 2 * (lane % 4) + r % 2 of its block. Elsewhere (HIP,
// older GPUs) the FMA product runs, with full f32 products.
constexpr char kMmaSelectSource[] = R"(
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define XL_GEMM_MMA 1
#else
#define XL_GEMM_MMA 0
#endif
#if XL_GEMM_MMA
// acc[0..3][c] += A (a0..a3) x B (b0, b1), as XL_MMA_SHAPE multiplies.
#define XL_MMA(a0, a1, a2, a3, b0, b1, c)                                  \
  asm volatile("mma.sync.aligned." XL_MMA_SHAPE                             \
               " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "            \
               "{%0, %1, %2, %3};"                                          \
               : "+f"(acc[0][c]), "+f"(acc[1][c]), "+f"(acc[2][c]),         \
                 "+f"(acc[3][c])                                            \
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
$MMA_TYPE#endif
)";

constexpr char kMmaBf16Source[] =
    R"(#define XL_MMA_SHAPE "m16n8k16.row.col.f32.bf16.bf16.f32"
#define XL_MMA_K 16
__device__ __forceinline__ unsigned int xl_pack_bf16x2(float lo, float hi) {
  // The upper halves of lo and hi: bf16 values held exactly as floats.
  return __byte_perm(__float_as_uint(lo), __float_as_uint(hi), 0x7632);
}
#define XL_MMA_FRAG(tile, kk, h, m)                        \
  xl_pack_bf16x2(tile[(kk) + 2 * t + 8 * (h)][m],          \
                 tile[(kk) + 2 * t + 8 * (h) + 1][m])
)";

constexpr char kMmaTf32Source[] =
    R"(#define XL_MMA_SHAPE "m16n8k8.row.col.f32.tf32.tf32.f32"
#define XL_MMA_K 8
__device__ __forceinline__ unsigned int xl_tf32(float f) {
  unsigned int r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
  return r;
}
#define XL_MMA_FRAG(tile, kk, h, m) xl_tf32(tile[(kk) + t + 4 * (h)][m])
)";

constexpr char kMmaTileProductSource[] = R"(#if XL_GEMM_MMA
        {
          const int lane = tid % 32, warp = tid / 32;
          const int g = lane / 4, t = lane % 4;
          const int m0 = (warp / 2) * 16 + g, n0 = (warp % 2) * 32 + g;
#pragma unroll
          for (int kk = 0; kk < kTileK; kk += XL_MMA_K) {
            const unsigned int a0 = XL_MMA_FRAG(lhs_tile, kk, 0, m0);
            const unsigned int a1 = XL_MMA_FRAG(lhs_tile, kk, 0, m0 + 8);
            const unsigned int a2 = XL_MMA_FRAG(lhs_tile, kk, 1, m0);
            const unsigned int a3 = XL_MMA_FRAG(lhs_tile, kk, 1, m0 + 8);
#pragma unroll
            for (int c = 0; c < 4; ++c) {
              const int n = n0 + 8 * c;
              XL_MMA(a0, a1, a2, a3, XL_MMA_FRAG(rhs_tile, kk, 0, n),
                     XL_MMA_FRAG(rhs_tile, kk, 1, n), c);
            }
          }
        }
#else
$FMA_PRODUCT
#endif)";

// Loads the operand tiles of the pass starting at k = next into registers.
constexpr char kStageTemplate[] = R"(#pragma unroll
        for (int s = 0; s < kLhsSteps; ++s) {
          const int e = tid + s * kThreads;
$LHS_INDEX
          const long long row = row0 + i, k = next + kk;
          lhs_staged[s] = e < kTileM * kTileK && row < kM && k < kK
                             ? load_element(lhs_batch, $LHS_OFFSET)
                             : 0.0f;
        }
#pragma unroll
        for (int s = 0; s < kRhsSteps; ++s) {
          const int e = tid + s * kThreads;
$RHS_INDEX
          const long long k = next + kk, col = col0 + j;
          rhs_staged[s] = e < kTileN * kTileK && k < kK && col < kN
                             ? load_element(rhs_batch, $RHS_OFFSET)
                             : 0.0f;
        })";

// Loads and stores of one element type, as overloads on the pointer type
// so that operands and output may differ (bf16 operands, f32 output).
constexpr char kF32Elements[] = R"(
__device__ __forceinline__ float load_element(const float* data,
                                              long long i) {
  return data[i];
}
__device__ __forceinline__ void store_element(float* data, long long i,
                                              float value) {
  data[i] = value;
})";
// bf16 elements through the shared conversions (kFloat16DeviceSource), so
// the emitted gemm rounds as the host kernel does.
constexpr char kBf16Elements[] = R"(
__device__ __forceinline__ float load_element(const unsigned short* data,
                                              long long i) {
  return xl_bf16_to_f32(data[i]);
}
__device__ __forceinline__ void store_element(unsigned short* data,
                                              long long i, float value) {
  data[i] = xl_f32_to_bf16(value);
})";

const char* StorageType(se::blas::DataType type) {
  return type == se::blas::DataType::kBF16 ? "unsigned short" : "float";
}

std::string ElementFunctions(const GemmConfig& config) {
  auto functions = [](se::blas::DataType type) {
    return type == se::blas::DataType::kBF16 ? kBf16Elements : kF32Elements;
  };
  if (config.output_type == config.type) return functions(config.type);
  return absl::StrCat(functions(config.type), functions(config.output_type));
}

// Where batch `batch` of each operand starts: the linear batch index split
// over the batch dimensions, innermost first; the outermost index needs no
// modulo, as batch < kBatch. Without batches the loop never runs.
std::string BatchOffsets(const GemmConfig& config) {
  if (config.batch_dims.empty() || config.batch == 0) {
    return "    const long long lhs_offset = 0, rhs_offset = 0;";
  }
  std::string code =
      "    long long lhs_offset = 0, rhs_offset = 0, rest = batch;";
  for (size_t i = config.batch_dims.size(); i-- > 0;) {
    const GemmBatchDim& dim = config.batch_dims[i];
    if (i == 0) {
      absl::StrAppendFormat(&code,
                            "\n    lhs_offset += rest * %dLL;"
                            "\n    rhs_offset += rest * %dLL;",
                            dim.lhs_stride, dim.rhs_stride);
    } else {
      absl::StrAppendFormat(&code,
                            "\n    lhs_offset += rest %% %dLL * %dLL;"
                            "\n    rhs_offset += rest %% %dLL * %dLL;"
                            "\n    rest /= %dLL;",
                            dim.size, dim.lhs_stride, dim.size, dim.rhs_stride,
                            dim.size);
    }
  }
  return code;
}

// Which tile element thread element `e` stages: `fast` varies fastest with
// `e`, and is chosen as the operand's contiguous dimension so that
// neighbouring threads read neighbouring addresses.
std::string IndexAlong(const char* fast, const char* slow, const char* tile) {
  return absl::StrFormat("          const int %s = e %% %s, %s = e / %s;", fast,
                         tile, slow, tile);
}

// A float constant by its bits: exact for every value, infinities and NaNs
// included, with the decimal value alongside for readers.
std::string FloatConstant(const char* name, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return absl::StrFormat(
      "  const float %s = __uint_as_float(0x%08xu);  // %.9g", name, bits,
      value);
}

}  // namespace

const char kStoreRunSource[] = R"(
#ifndef XL_STORE_RUN
#define XL_STORE_RUN
template <int kCount>
__device__ __forceinline__ void xl_store_run(float* p, const float* v) {
  const unsigned long long address = (unsigned long long)p;
  if (kCount == 4 && address % 16 == 0) {
    float4 x;
    x.x = v[0];
    x.y = v[1];
    x.z = v[2];
    x.w = v[3];
    *reinterpret_cast<float4*>(p) = x;
  } else if (kCount == 2 && address % 8 == 0) {
    float2 x;
    x.x = v[0];
    x.y = v[1];
    *reinterpret_cast<float2*>(p) = x;
  } else {
#pragma unroll
    for (int q = 0; q < kCount; ++q) p[q] = v[q];
  }
}
#endif  // XL_STORE_RUN
)";

const char kGemmTileProductSource[] = R"(#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk) {
          float a[kRowsPerThread], b[kColsPerThread];
          xl_load_run<kRowsPerThread>(&lhs_tile[kk][ty * kRowsPerThread], a);
          xl_load_run<kColsPerThread>(&rhs_tile[kk][tx * kColsPerThread], b);
#pragma unroll
          for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
            for (int c = 0; c < kColsPerThread; ++c) {
              acc[r][c] = fmaf(a[r], b[c], acc[r][c]);
            }
          }
        })";

const char kLoadRunSource[] = R"(
#ifndef XL_LOAD_RUN
#define XL_LOAD_RUN
template <int kCount>
__device__ __forceinline__ void xl_load_run(const float* p, float* v) {
  if (kCount % 4 == 0) {
#pragma unroll
    for (int q = 0; q < kCount / 4; ++q) {
      const float4 x = reinterpret_cast<const float4*>(p)[q];
      v[4 * q] = x.x;
      v[4 * q + 1] = x.y;
      v[4 * q + 2] = x.z;
      v[4 * q + 3] = x.w;
    }
  } else if (kCount == 2) {
    const float2 x = reinterpret_cast<const float2*>(p)[0];
    v[0] = x.x;
    v[1] = x.y;
  } else {
#pragma unroll
    for (int q = 0; q < kCount; ++q) v[q] = p[q];
  }
}
#endif  // XL_LOAD_RUN
)";

// The PTX of cudaTriggerProgrammaticLaunchCompletion() and
// cudaGridDependencySynchronize(), which NVRTC does not declare; the only
// inline assembly in emitted code, and only where __CUDA_ARCH__ says sm_90+.
const char kAwaitProducersSource[] = R"(#ifndef XL_AWAIT_PRODUCERS
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define XL_AWAIT_PRODUCERS()                               \
  do {                                                     \
    asm volatile("griddepcontrol.launch_dependents;" :::); \
    asm volatile("griddepcontrol.wait;" ::: "memory");     \
  } while (0)
#else
#define XL_AWAIT_PRODUCERS() do { } while (0)
#endif
#endif
)";

bool UsesTensorCores(const GemmConfig& config, const GemmTiling& tiling) {
  const bool bf16 = config.type == se::blas::DataType::kBF16;
  if (!bf16 && !config.allow_tf32) return false;
  return tiling.rows_per_thread == 4 && tiling.cols_per_thread == 4 &&
         tiling.tile_k % (bf16 ? 16 : 8) == 0;
}

std::string GemmKernelSource(const GemmConfig& config, const GemmTiling& tiling,
                             const std::string& entry,
                             const EpilogueSource* epilogue) {
  CHECK(tiling.IsValid()) << tiling.ToString();
  CHECK(epilogue == nullptr ||
        (config.beta == 0.0f && config.type == se::blas::DataType::kF32 &&
         config.output_type == se::blas::DataType::kF32))
      << "epilogues take f32 products with beta = 0: " << config.ToString();
  const bool read_out = config.beta != 0.0f;
  std::string scalars = FloatConstant("alpha", config.alpha);
  if (read_out)
    absl::StrAppend(&scalars, "\n", FloatConstant("beta", config.beta));
  // op(lhs) is m x k: stored k-contiguous unless transposed. op(rhs) is
  // k x n: stored n-contiguous unless transposed.
  std::string lhs_index = config.transpose_lhs
                              ? IndexAlong("i", "kk", "kTileM")
                              : IndexAlong("kk", "i", "kTileK");
  std::string rhs_index = config.transpose_rhs
                              ? IndexAlong("kk", "j", "kTileK")
                              : IndexAlong("j", "kk", "kTileN");
  const bool mma = UsesTensorCores(config, tiling);
  const std::string product =
      mma ? absl::StrReplaceAll(kMmaTileProductSource,
                                {{"$FMA_PRODUCT", kGemmTileProductSource}})
          : kGemmTileProductSource;
  const std::string mma_source =
      mma ? absl::StrReplaceAll(
                kMmaSelectSource,
                {{"$MMA_TYPE", config.type == se::blas::DataType::kBF16
                                   ? kMmaBf16Source
                                   : kMmaTf32Source}})
          : "";
  // StrReplaceAll makes one pass: the staging code goes in first.
  const std::string text =
      absl::StrReplaceAll(kKernelTemplate, {{"$STAGE", kStageTemplate}});
  return absl::StrReplaceAll(
      text,
      {
          {"$CONFIG", config.ToString()},
          {"$TILING", tiling.ToString()},
          {"$INPUT", StorageType(config.type)},
          {"$OUTPUT", StorageType(config.output_type)},
          {"$ELEMENTS", ElementFunctions(config)},
          {"$BATCH_OFFSETS", BatchOffsets(config)},
          {"$LHS_LD", absl::StrCat(config.lhs_ld)},
          {"$RHS_LD", absl::StrCat(config.rhs_ld)},
          {"$ENTRY", entry},
          {"$BATCH", absl::StrCat(config.batch)},
          {"$M", absl::StrCat(config.m)},
          {"$N", absl::StrCat(config.n)},
          {"$K", absl::StrCat(config.k)},
          {"$TILE_M", absl::StrCat(tiling.tile_m())},
          {"$TILE_N", absl::StrCat(tiling.tile_n())},
          {"$TILE_K", absl::StrCat(tiling.tile_k)},
          {"$ROWS_PER_THREAD", absl::StrCat(tiling.rows_per_thread)},
          {"$COLS_PER_THREAD", absl::StrCat(tiling.cols_per_thread)},
          {"$SCALARS", scalars},
          {"$LHS_INDEX", lhs_index},
          {"$LHS_OFFSET",
           config.transpose_lhs ? "k * kLhsLd + row" : "row * kLhsLd + k"},
          {"$RHS_INDEX", rhs_index},
          {"$RHS_OFFSET",
           config.transpose_rhs ? "col * kRhsLd + k" : "k * kRhsLd + col"},
          {"$BETA_TERM", read_out
                             ? "            value = value + beta * "
                               "load_element(out, index);"
                             : "            // beta == 0: out is never read."},
          {"$AWAIT_PRODUCERS", kAwaitProducersSource},
          {"$TILE_PRODUCT", product},
          {"$ACC_ROW",
           mma ? "(XL_GEMM_MMA ? (tid / 64) * 16 + (tid % 32) / 4 + (r / 2) "
                 "* 8 : ty * kRowsPerThread + r)"
               : "ty * kRowsPerThread + r"},
          {"$ACC_COL",
           mma ? "(XL_GEMM_MMA ? (tid / 32 % 2) * 32 + 8 * c + 2 * (tid % 4) "
                 "+ r % 2 : tx * kColsPerThread + c)"
               : "tx * kColsPerThread + c"},
          {"$MMA", mma_source},
          {"$FLOAT16", kFloat16DeviceSource},
          {"$LOAD_RUN", kLoadRunSource},
          {"$DEFINITIONS", epilogue == nullptr ? "" : epilogue->definitions},
          {"$OUTPUT_PARAMETERS",
           epilogue == nullptr ? ", output_t* out" : epilogue->parameters},
          {"$STORE_RESULT",
           epilogue == nullptr
               ? "store_element(out, index, value)"
               : absl::StrCat(epilogue->function, "(index, value",
                              epilogue->arguments, ")")},
      });
}

}  // namespace xla_lite::gpu
