#include "xla_lite/service/gemm/gemm_tiling.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

// The hardware limit on gridDim.y and gridDim.z.
constexpr int64_t kMaxGridYZ = 65535;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

int64_t GemmBlockCount(const GemmConfig& config, const GemmTiling& tiling) {
  return CeilDiv(config.m, tiling.tile_m()) *
         CeilDiv(config.n, tiling.tile_n()) * config.batch;
}

int64_t GemmTiling::SharedBytes() const {
  // Rows padded by 4 floats keep each thread's run 16-byte aligned.
  return int64_t{tile_k} * (tile_m() + 4 + tile_n() + 4) * sizeof(float);
}

bool GemmTiling::IsValid() const {
  auto valid = [](int per_thread) {
    return per_thread == 1 || per_thread == 2 || per_thread == 4 ||
           per_thread == 8;
  };
  return valid(rows_per_thread) && valid(cols_per_thread) && tile_k >= 1 &&
         SharedBytes() <= kMaxSharedBytes;
}

std::string GemmTiling::ToString() const {
  return absl::StrFormat("tile %dx%dx%d, %dx%d per thread", tile_m(), tile_n(),
                         tile_k, rows_per_thread, cols_per_thread);
}

bool MayUseTensorCores(const GemmConfig& config) {
  return config.type == se::blas::DataType::kBF16 || config.allow_tf32 ||
         config.f64_tensor_cores;
}

GemmTiling ChooseGemmTiling(const GemmConfig& config, const GemmTiling& largest,
                            int64_t min_blocks) {
  GemmTiling tiling = largest;
  if (config.f64_tensor_cores) {
    tiling = GemmTiling();
    min_blocks = 0;
  }
  tiling.tile_k = GemmTiling::kDefaultTileK;
  while (GemmBlockCount(config, tiling) < min_blocks &&
         (tiling.rows_per_thread > 1 || tiling.cols_per_thread > 1)) {
    // Halve the side whose tiles overhang the output more, so that thin
    // products get thin tiles; on a tie, the larger register block, except
    // that a product that may run on tensor cores, which need 4 rows a
    // thread and 2 or 4 columns (UsesTensorCores), gives up columns first,
    // down to 2.
    int64_t waste_m =
        CeilDiv(config.m, tiling.tile_m()) * tiling.tile_m() - config.m;
    int64_t waste_n =
        CeilDiv(config.n, tiling.tile_n()) * tiling.tile_n() - config.n;
    const bool tie_shrinks_m =
        MayUseTensorCores(config) && tiling.rows_per_thread == 4
            ? tiling.cols_per_thread <= 2
            : tiling.rows_per_thread >= tiling.cols_per_thread;
    bool shrink_m =
        tiling.cols_per_thread == 1 ||
        (tiling.rows_per_thread > 1 &&
         (waste_m > waste_n || (waste_m == waste_n && tie_shrinks_m)));
    (shrink_m ? tiling.rows_per_thread : tiling.cols_per_thread) /= 2;
  }
  // The whole contraction in one pass where it fits, else passes of 64 or
  // 32 (multiples of the tensor cores' k steps): each pass waits out one
  // memory latency, so the fewer the better (attention's 128-long
  // contractions took 8 passes of 16). A k of more than kMaxSharedBytes
  // never fits whole; the bound keeps the cast exact.
  if (config.k > GemmTiling::kDefaultTileK) {
    for (int64_t depth : {config.k, int64_t{64}, int64_t{32}}) {
      if (depth > config.k || depth > GemmTiling::kMaxSharedBytes) continue;
      GemmTiling deeper = tiling;
      deeper.tile_k = static_cast<int>(depth);
      if (deeper.SharedBytes() <= GemmTiling::kMaxSharedBytes) {
        tiling = deeper;
        break;
      }
    }
  }
  return tiling;
}

se::LaunchDimensions GemmLaunchDimensionsFor(const GemmConfig& config,
                                             const GemmTiling& tiling) {
  CHECK(tiling.IsValid()) << tiling.ToString();
  int64_t tiles_n = CeilDiv(config.n, tiling.tile_n());
  CHECK_LE(tiles_n, std::numeric_limits<int32_t>::max())
      << "gemm too wide for one grid: " << config.ToString();
  auto at_least_one = [](int64_t count) {
    return static_cast<uint32_t>(std::max<int64_t>(count, 1));
  };
  se::LaunchDimensions dims;
  dims.blocks.x = at_least_one(tiles_n);
  dims.blocks.y =
      at_least_one(std::min(CeilDiv(config.m, tiling.tile_m()), kMaxGridYZ));
  dims.blocks.z = at_least_one(std::min(config.batch, kMaxGridYZ));
  dims.threads_per_block = {GemmTiling::kThreadsX, GemmTiling::kThreadsY, 1};
  return dims;
}

}  // namespace xla_lite::gpu
