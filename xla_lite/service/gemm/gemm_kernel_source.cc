#include "xla_lite/service/gemm/gemm_kernel_source.h"

#include <cstdint>
#include <cstring>
#include <vector>

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
$LOAD_RUN
$ELEMENTS
$MMA
$ACC_TYPE
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
  // Elements per staged load (each operand's contiguous run), and loads
  // per thread per pass.
  constexpr int kLhsVec = $LHS_VEC, kRhsVec = $RHS_VEC;
  constexpr int kLhsRuns = kTileM * kTileK / kLhsVec;
  constexpr int kRhsRuns = kTileN * kTileK / kRhsVec;
  constexpr int kLhsSteps = (kLhsRuns + kThreads - 1) / kThreads;
  constexpr int kRhsSteps = (kRhsRuns + kThreads - 1) / kThreads;
$SCALARS
  XL_AWAIT_PRODUCERS();
  __shared__ __align__(16) float lhs_tile[kTileK][kTileM + 4];
  __shared__ __align__(16) float rhs_tile[kTileK][kTileN + 4];

  if (blockIdx.x >= kTilesN) return;
  // Runs are whole vectors where the operands start aligned; strides and
  // extents were checked when the kernel was emitted.
  const bool lhs_aligned = xl_is_aligned<kLhsVec>(lhs);
  const bool rhs_aligned = xl_is_aligned<kRhsVec>(rhs);
  constexpr bool kVectorStore = $VECTOR_STORES;
  const bool out_aligned = $OUT_ALIGNED;
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
      xl_acc_t acc[kRowsPerThread][kColsPerThread];
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) acc[r][c] = 0.0f;
      }
      float lhs_staged[kLhsSteps][kLhsVec], rhs_staged[kRhsSteps][kRhsVec];
      {
        const long long next = 0;
$STAGE
      }
      for (long long k0 = 0; k0 < kK; k0 += kTileK) {
#pragma unroll
        for (int s = 0; s < kLhsSteps; ++s) {
          const int e = tid + s * kThreads;
$LHS_INDEX
          if (e < kLhsRuns) {
#pragma unroll
            for (int q = 0; q < kLhsVec; ++q) {
              lhs_tile[kk + $LHS_DK * q][i + $LHS_DI * q] = lhs_staged[s][q];
            }
          }
        }
#pragma unroll
        for (int s = 0; s < kRhsSteps; ++s) {
          const int e = tid + s * kThreads;
$RHS_INDEX
          if (e < kRhsRuns) {
#pragma unroll
            for (int q = 0; q < kRhsVec; ++q) {
              rhs_tile[kk + $RHS_DK * q][j + $RHS_DJ * q] = rhs_staged[s][q];
            }
          }
        }
        __syncthreads();
        if (k0 + kTileK < kK) {
          const long long next = k0 + kTileK;
$STAGE
        }
$TILE_PRODUCT
        __syncthreads();
      }
$STORE_RUNS
    }
  }
}
)";

// Products on tensor cores (sm_80 and up): each warp of the 64-row tile
// takes 16 rows and half the columns (8 * kColsPerThread: 32 of a 64x64
// tile, 16 of a 64x32 one), kColsPerThread mma.sync products per step of
// XL_MMA_K along k, reading its fragments from the f32 tiles: bf16
// operands (which the tiles hold exactly) packed back into bf16 pairs,
// m16n8k16; f32 operands whose dot allows TF32 rounded to it as cuBLAS
// does (cvt.rna), m16n8k8; f32 operands on FP64 tensor cores
// (GemmConfig::f64_tensor_cores, sm_90) widened exactly, m16n8k8 with f64
// accumulators (xl_acc_t). XL_MMA_FRAG(tile, kk, h, m) is the fragment
// register of column (A) or row (B) m holding half h of the step's k (the
// thread's k offset t = lane % 4 in scope). acc[r][c] is then the
// accumulator fragment's register r of column block c: row lane / 4 (+ 8
// for r >= 2), column 2 * (lane % 4) + r % 2 of its block. Elsewhere (HIP,
// older GPUs) the FMA product runs, with full f32 products.
constexpr char kMmaSelectSource[] = R"(
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= $MMA_ARCH
#define XL_GEMM_MMA 1
#else
#define XL_GEMM_MMA 0
#endif
#if XL_GEMM_MMA
$MMA_TYPE#endif
)";

// acc[0..3][c] += A (a0..a3) x B (b0, b1), as XL_MMA_SHAPE multiplies, with
// f32 accumulators and fragments of packed 32-bit registers.
constexpr char kMmaF32AccSource[] = R"(
#define XL_MMA(a0, a1, a2, a3, b0, b1, c)                                  \
  asm volatile("mma.sync.aligned." XL_MMA_SHAPE                             \
               " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "            \
               "{%0, %1, %2, %3};"                                          \
               : "+f"(acc[0][c]), "+f"(acc[1][c]), "+f"(acc[2][c]),         \
                 "+f"(acc[3][c])                                            \
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1))
typedef unsigned int xl_mma_frag_t;
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

// FP64 tensor cores, in sm_90's m16n8k8 .f64 shape (the m8n8k4 shape,
// which sm_80 has too, took 1.7 times as long for one product on an
// H200): the f32 tile elements widened exactly, so every product is exact
// and the f64 accumulators sum them; the store rounds each sum to f32
// once. Fragments follow the TF32 shape's layout.
constexpr char kMmaF64Source[] = R"(
#define XL_MMA_K 8
#define XL_MMA(a0, a1, a2, a3, b0, b1, c)                                  \
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"           \
               " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "            \
               "{%0, %1, %2, %3};"                                          \
               : "+d"(acc[0][c]), "+d"(acc[1][c]), "+d"(acc[2][c]),         \
                 "+d"(acc[3][c])                                            \
               : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1))
typedef double xl_mma_frag_t;
#define XL_MMA_FRAG(tile, kk, h, m) ((double)tile[(kk) + t + 4 * (h)][m])
)";

constexpr char kMmaTileProductSource[] = R"(#if XL_GEMM_MMA
        {
          const int lane = tid % 32, warp = tid / 32;
          const int g = lane / 4, t = lane % 4;
          const int m0 = (warp / 2) * 16 + g;
          const int n0 = (warp % 2) * 8 * kColsPerThread + g;
#pragma unroll
          for (int kk = 0; kk < kTileK; kk += XL_MMA_K) {
            const xl_mma_frag_t a0 = XL_MMA_FRAG(lhs_tile, kk, 0, m0);
            const xl_mma_frag_t a1 = XL_MMA_FRAG(lhs_tile, kk, 0, m0 + 8);
            const xl_mma_frag_t a2 = XL_MMA_FRAG(lhs_tile, kk, 1, m0);
            const xl_mma_frag_t a3 = XL_MMA_FRAG(lhs_tile, kk, 1, m0 + 8);
#pragma unroll
            for (int c = 0; c < kColsPerThread; ++c) {
              const int n = n0 + 8 * c;
              XL_MMA(a0, a1, a2, a3, XL_MMA_FRAG(rhs_tile, kk, 0, n),
                     XL_MMA_FRAG(rhs_tile, kk, 1, n), c);
            }
          }
        }
#else
$FMA_PRODUCT
#endif)";

// Stores the run of kRun accumulators v[] that starts at (row, col): one
// vector store where the output allows it (kVectorStore: no epilogue,
// beta 0, rows a multiple of kRun long; and `out` aligned), else element by
// element.
constexpr char kStoreRunTemplate[] = R"(
          if (row < kM) {
            const long long index = (batch * kM + row) * kN + col;
            if (kVectorStore && col + kRun <= kN && out_aligned) {
              float scaled[kRun];
#pragma unroll
              for (int q = 0; q < kRun; ++q) scaled[q] = alpha * v[q];
              $VECTOR_STORE;
            } else {
#pragma unroll
              for (int q = 0; q < kRun; ++q) {
                if (col + q < kN) {
                  const long long at = index + q;
                  float value = alpha * v[q];
$BETA_TERM
                  $STORE_RESULT;
                }
              }
            }
          })";

// The FMA product's accumulators: each thread's row r holds kColsPerThread
// adjacent columns, one run.
constexpr char kFmaStoreTemplate[] = R"(#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        {
          constexpr int kRun = kColsPerThread;
          const long long row = row0 + ty * kRowsPerThread + r;
          const long long col = col0 + tx * kColsPerThread;
          const float* v = acc[r];
$STORE_RUN
        }
      })";

// The tensor cores' accumulators (kMmaTileProductSource): registers 2h and
// 2h + 1 of column block c are adjacent columns of one row, a run of two.
constexpr char kMmaStoreTemplate[] = R"(#if XL_GEMM_MMA
#pragma unroll
      for (int h = 0; h < 2; ++h) {
#pragma unroll
        for (int c = 0; c < kColsPerThread; ++c) {
          constexpr int kRun = 2;
          const long long row =
              row0 + (tid / 64) * 16 + (tid % 32) / 4 + h * 8;
          const long long col = col0 + (tid / 32 % 2) * 8 * kColsPerThread +
                                8 * c + 2 * (tid % 4);
          const float v[2] = {(float)acc[2 * h][c], (float)acc[2 * h + 1][c]};
$STORE_RUN
        }
      }
#else
$FMA_STORE
#endif)";

// Loads the operand tiles of the pass starting at k = next into registers.
constexpr char kStageTemplate[] = R"(#pragma unroll
        for (int s = 0; s < kLhsSteps; ++s) {
          const int e = tid + s * kThreads;
$LHS_INDEX
          const long long row = row0 + i, k = next + kk;
          load_run<kLhsVec>(lhs_batch, $LHS_OFFSET,
                            e < kLhsRuns && row < kM && k < kK, lhs_aligned,
                            lhs_staged[s]);
        }
#pragma unroll
        for (int s = 0; s < kRhsSteps; ++s) {
          const int e = tid + s * kThreads;
$RHS_INDEX
          const long long k = next + kk, col = col0 + j;
          load_run<kRhsVec>(rhs_batch, $RHS_OFFSET,
                            e < kRhsRuns && k < kK && col < kN, rhs_aligned,
                            rhs_staged[s]);
        })";

// Loads and stores of one element type, as overloads on the pointer type
// so that operands and output may differ (bf16 operands, f32 output).
// load_run reads kVec consecutive elements from data[i] on (zeros when
// out of bounds), as one vector load when the operand is aligned; store_run
// writes kRun from data[i] on, as one vector store where aligned. The f32
// ones are the shared xl_load_run and xl_store_run (kLoadRunSource,
// kStoreRunSource).
constexpr char kRunAlignmentSource[] = R"(
template <int kVec, typename T>
__device__ __forceinline__ bool xl_is_aligned(const T* p) {
  return kVec == 1 || (unsigned long long)p % (kVec * sizeof(T)) == 0;
})";
constexpr char kF32Elements[] = R"(
__device__ __forceinline__ float load_element(const float* data,
                                              long long i) {
  return data[i];
}
template <int kRun>
__device__ __forceinline__ void store_run(float* data, long long i,
                                          const float* v) {
  xl_store_run<kRun>(data + i, v);
}
template <int kVec>
__device__ __forceinline__ void load_run(const float* data, long long i,
                                         bool in_bounds, bool aligned,
                                         float* v) {
  if (!in_bounds) {
#pragma unroll
    for (int q = 0; q < kVec; ++q) v[q] = 0.0f;
  } else if (aligned) {
    xl_load_run<kVec>(data + i, v);
  } else {
#pragma unroll
    for (int q = 0; q < kVec; ++q) v[q] = data[i + q];
  }
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
template <int kRun>
__device__ __forceinline__ void store_run(unsigned short* data, long long i,
                                          const float* v) {
  unsigned int packed[kRun / 2 > 0 ? kRun / 2 : 1];
#pragma unroll
  for (int q = 0; q + 1 < kRun; q += 2) {
    packed[q / 2] = (unsigned int)xl_f32_to_bf16(v[q]) |
                    (unsigned int)xl_f32_to_bf16(v[q + 1]) << 16;
  }
  if (kRun == 4) {
    *reinterpret_cast<uint2*>(data + i) = make_uint2(packed[0], packed[1]);
  } else if (kRun == 2) {
    *reinterpret_cast<unsigned int*>(data + i) = packed[0];
  } else {
#pragma unroll
    for (int q = 0; q < kRun; ++q) data[i + q] = xl_f32_to_bf16(v[q]);
  }
}
template <int kVec>
__device__ __forceinline__ void load_run(const unsigned short* data,
                                         long long i, bool in_bounds,
                                         bool aligned, float* v) {
  if (!in_bounds) {
#pragma unroll
    for (int q = 0; q < kVec; ++q) v[q] = 0.0f;
  } else if (kVec == 4 && aligned) {
    // Four bf16 values, the first in the low half of x.x.
    const uint2 x = *reinterpret_cast<const uint2*>(data + i);
    v[0] = xl_bf16_to_f32((unsigned short)(x.x & 0xffffu));
    v[1] = xl_bf16_to_f32((unsigned short)(x.x >> 16));
    v[2] = xl_bf16_to_f32((unsigned short)(x.y & 0xffffu));
    v[3] = xl_bf16_to_f32((unsigned short)(x.y >> 16));
  } else {
#pragma unroll
    for (int q = 0; q < kVec; ++q) v[q] = xl_bf16_to_f32(data[i + q]);
  }
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
  if (config.output_type == config.type) {
    return absl::StrCat(kRunAlignmentSource, functions(config.type));
  }
  return absl::StrCat(kRunAlignmentSource, functions(config.type),
                      functions(config.output_type));
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

// Which tile elements thread run `e` stages: `vec` of them from (fast,
// slow) on along `fast`, which varies fastest with `e` and is chosen as the
// operand's contiguous dimension so that neighbouring threads read
// neighbouring addresses.
//
// Runs along k are stored across the k-major tile, a row of the tile per
// element: with 16 runs of a row to a warp, a store's 32 lanes met in 2
// banks. Such runs go 8 rows by 4 runs to a warp (64 contiguous bytes of
// each row: whole sectors), which spreads them over 16 banks; the rows
// (tile_m or tile_n, multiples of 16) come in eights.
std::string IndexAlong(const char* fast, const char* slow, const char* tile,
                       const char* vec, int vec_length) {
  if (vec_length > 1 && std::string(fast) == "kk") {
    return absl::StrFormat(
        "          const int %s = e / 8 %% (%s / %s) * %s,\n"
        "                    %s = e %% 8 + e / (8 * (%s / %s)) * 8;",
        fast, tile, vec, vec, slow, tile, vec);
  }
  return absl::StrFormat(
      "          const int %s = e %% (%s / %s) * %s, %s = e / (%s / %s);", fast,
      tile, vec, vec, slow, tile, vec);
}

// Elements per staged load of one operand: 4 (a 16-byte f32 or 8-byte
// bf16 vector) when no run of 4 along its contiguous dimension crosses a
// tile's or the matrix's edge and every row and batch starts 4 elements
// apart from the buffer's start; else 1. Whether the buffer itself is
// aligned is known only when the kernel runs (xl_is_aligned).
int RunLength(int64_t contiguous_extent, int contiguous_tile, int64_t ld,
              const std::vector<GemmBatchDim>& batch_dims, bool lhs) {
  constexpr int kRun = 4;
  if (contiguous_extent % kRun != 0 || contiguous_tile % kRun != 0 ||
      ld % kRun != 0) {
    return 1;
  }
  for (const GemmBatchDim& dim : batch_dims) {
    if ((lhs ? dim.lhs_stride : dim.rhs_stride) % kRun != 0) return 1;
  }
  return kRun;
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

const char* MmaArch(const GemmConfig& config) {
  return config.f64_tensor_cores ? "900" : "800";
}

std::string MmaTypeSource(const GemmConfig& config) {
  if (config.f64_tensor_cores) return kMmaF64Source;
  return absl::StrCat(kMmaF32AccSource, config.type == se::blas::DataType::kBF16
                                            ? kMmaBf16Source
                                            : kMmaTf32Source);
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

// Unrolled by at most 16 steps of k: unrolled whole, a 64-deep pass let the
// compiler hoist every step's shared-memory loads, and the 64x64x64 tile
// took 128 registers and spilled (79 when bounded).
const char kGemmTileProductSource[] = R"(#pragma unroll 16
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

// The PTX of cudaGridDependencySynchronize(), which NVRTC does not declare;
// with the gemms' mma.sync products the only inline assembly in emitted
// code, and only where __CUDA_ARCH__ says sm_90+. Kernels do not trigger their dependents early
// (griddepcontrol.launch_dependents): each block triggers as it exits, so
// a dependent launches as the last blocks finish, not while the whole grid
// runs. Launched at a kernel's start, the dependents' blocks sat in
// griddepcontrol.wait holding registers and shared memory that the library
// gemms on other branches of the graph could have used: on an H200 the
// early trigger cost the f32 transformer step 2.7%, the bf16 one 1.2% and
// the tiny one 4.8% (docs/benchmarks.md).
const char kAwaitProducersSource[] = R"(#ifndef XL_AWAIT_PRODUCERS
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define XL_AWAIT_PRODUCERS() asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define XL_AWAIT_PRODUCERS() do { } while (0)
#endif
#endif
)";

bool UsesTensorCores(const GemmConfig& config, const GemmTiling& tiling) {
  if (!MayUseTensorCores(config)) return false;
  const bool bf16 = config.type == se::blas::DataType::kBF16;
  return tiling.rows_per_thread == 4 &&
         (tiling.cols_per_thread == 4 || tiling.cols_per_thread == 2) &&
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
  const int lhs_vec = config.transpose_lhs
                          ? RunLength(config.m, tiling.tile_m(), config.lhs_ld,
                                      config.batch_dims, /*lhs=*/true)
                          : RunLength(config.k, tiling.tile_k, config.lhs_ld,
                                      config.batch_dims, /*lhs=*/true);
  const int rhs_vec = config.transpose_rhs
                          ? RunLength(config.k, tiling.tile_k, config.rhs_ld,
                                      config.batch_dims, /*lhs=*/false)
                          : RunLength(config.n, tiling.tile_n(), config.rhs_ld,
                                      config.batch_dims, /*lhs=*/false);
  std::string lhs_index =
      config.transpose_lhs
          ? IndexAlong("i", "kk", "kTileM", "kLhsVec", lhs_vec)
          : IndexAlong("kk", "i", "kTileK", "kLhsVec", lhs_vec);
  std::string rhs_index =
      config.transpose_rhs
          ? IndexAlong("kk", "j", "kTileK", "kRhsVec", rhs_vec)
          : IndexAlong("j", "kk", "kTileN", "kRhsVec", rhs_vec);
  const bool mma = UsesTensorCores(config, tiling);
  const std::string product =
      mma ? absl::StrReplaceAll(kMmaTileProductSource,
                                {{"$FMA_PRODUCT", kGemmTileProductSource}})
          : kGemmTileProductSource;
  const std::string mma_source =
      mma ? absl::StrReplaceAll(kMmaSelectSource,
                                {{"$MMA_ARCH", MmaArch(config)},
                                 {"$MMA_TYPE", MmaTypeSource(config)}})
          : "";
  // FP64 tensor cores sum in f64; the FMA product (HIP, older GPUs) in f32.
  const std::string acc_type =
      mma && config.f64_tensor_cores
          ? "#if XL_GEMM_MMA\ntypedef double xl_acc_t;\n#else\ntypedef "
            "float xl_acc_t;\n#endif"
          : "typedef float xl_acc_t;";
  // Runs of the output stored as vectors: no epilogue, nothing read back,
  // and rows that every thread's runs (tx's columns, or the tensor cores'
  // pairs) divide.
  const bool vector_stores = epilogue == nullptr && !read_out &&
                             config.n % tiling.cols_per_thread == 0 &&
                             (!mma || config.n % 2 == 0);
  const std::string fma_store = absl::StrReplaceAll(
      kFmaStoreTemplate, {{"$STORE_RUN", kStoreRunTemplate}});
  const std::string store_runs =
      mma ? absl::StrReplaceAll(
                kMmaStoreTemplate,
                {{"$STORE_RUN", kStoreRunTemplate}, {"$FMA_STORE", fma_store}})
          : fma_store;
  // StrReplaceAll makes one pass: the staging and store code go in first.
  const std::string text = absl::StrReplaceAll(
      kKernelTemplate,
      {{"$STAGE", kStageTemplate}, {"$STORE_RUNS", store_runs}});
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
          {"$LHS_VEC", absl::StrCat(lhs_vec)},
          {"$RHS_VEC", absl::StrCat(rhs_vec)},
          {"$LHS_DK", config.transpose_lhs ? "0" : "1"},
          {"$LHS_DI", config.transpose_lhs ? "1" : "0"},
          {"$RHS_DK", config.transpose_rhs ? "1" : "0"},
          {"$RHS_DJ", config.transpose_rhs ? "0" : "1"},
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
                             ? "                  value = value + beta * "
                               "load_element(out, at);"
                             : "                  // beta == 0: out is never "
                               "read."},
          {"$VECTOR_STORES", vector_stores ? "true" : "false"},
          {"$OUT_ALIGNED", vector_stores ? "xl_is_aligned<kColsPerThread>(out) "
                                           "&& xl_is_aligned<2>(out)"
                                         : "false"},
          {"$VECTOR_STORE", vector_stores
                                ? "store_run<kRun>(out, index, scaled)"
                                : "// Never: kVectorStore is false"},
          {"$AWAIT_PRODUCERS", kAwaitProducersSource},
          {"$TILE_PRODUCT", product},
          {"$MMA", mma_source},
          {"$ACC_TYPE", acc_type},
          {"$FLOAT16", kFloat16DeviceSource},
          {"$LOAD_RUN", absl::StrCat(kLoadRunSource, kStoreRunSource)},
          {"$DEFINITIONS", epilogue == nullptr ? "" : epilogue->definitions},
          {"$OUTPUT_PARAMETERS",
           epilogue == nullptr ? ", output_t* out" : epilogue->parameters},
          {"$STORE_RESULT", epilogue == nullptr
                                ? "store_element(out, at, value)"
                                : absl::StrCat(epilogue->function, "(at, value",
                                               epilogue->arguments, ")")},
      });
}

}  // namespace xla_lite::gpu
