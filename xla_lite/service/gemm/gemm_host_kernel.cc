#include "xla_lite/service/gemm/gemm_host_kernel.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"

namespace xla_lite::gpu {
namespace {

template <typename Storage>
float LoadElement(const Storage* data, int64_t i) {
  if constexpr (std::is_same_v<Storage, uint16_t>) {
    return BF16ToF32(data[i]);
  } else {
    return data[i];
  }
}

template <typename Storage>
void StoreElement(Storage* data, int64_t i, float value) {
  if constexpr (std::is_same_v<Storage, uint16_t>) {
    data[i] = F32ToBF16(value);
  } else {
    data[i] = value;
  }
}

absl::Status CheckArguments(const GemmConfig& config,
                            const se::KernelArgs& args) {
  if (args.size() != 3) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "emitted gemm %s takes 3 arguments (lhs, rhs, out), got %d",
        config.ToString(), args.size()));
  }
  const char* names[] = {"lhs", "rhs", "out"};
  const Shape* shapes[] = {&config.lhs_shape, &config.rhs_shape,
                           &config.output_shape};
  for (int i = 0; i < 3; ++i) {
    if (!args[i].is_address() ||
        args[i].address().size() <
            static_cast<uint64_t>(shapes[i]->ByteSize())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "emitted gemm %s: %s needs %d bytes (%s), got %s", config.ToString(),
          names[i], shapes[i]->ByteSize(), shapes[i]->ToString(),
          args[i].is_address() ? args[i].address().ToString() : "a scalar"));
    }
  }
  return absl::OkStatus();
}

// op(operand) of one batch as a dense row-major rows x cols f32 matrix, so
// that the product's inner loop reads both operands contiguously. The
// stored matrix has `ld` elements between its rows.
template <typename Storage>
void Unpack(const Storage* data, int64_t rows, int64_t cols, bool transposed,
            int64_t ld, std::vector<float>& matrix) {
  matrix.resize(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      int64_t stored = transposed ? c * ld + r : r * ld + c;
      matrix[r * cols + c] = LoadElement(data, stored);
    }
  }
}

template <typename Input, typename Output>
void RunGemm(const GemmConfig& config, const Input* lhs, const Input* rhs,
             Output* out) {
  // Rows of the output accumulated together, so that each row of op(rhs) is
  // read once per block while the accumulators stay in cache.
  constexpr int64_t kRowBlock = 4;
  const int64_t m = config.m, n = config.n, k = config.k;
  std::vector<float> a, b, acc(kRowBlock * n);
  for (int64_t batch = 0; batch < config.batch; ++batch) {
    auto [lhs_offset, rhs_offset] = config.OperandOffsets(batch);
    Unpack(lhs + lhs_offset, m, k, config.transpose_lhs, config.lhs_ld, a);
    Unpack(rhs + rhs_offset, k, n, config.transpose_rhs, config.rhs_ld, b);
    Output* out_batch = out + batch * m * n;
    for (int64_t i0 = 0; i0 < m; i0 += kRowBlock) {
      const int64_t rows = std::min(kRowBlock, m - i0);
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t p = 0; p < k; ++p) {
        for (int64_t r = 0; r < rows; ++r) {
          AddScaledRow(&acc[r * n], &b[p * n], a[(i0 + r) * k + p], n);
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        Output* out_row = out_batch + (i0 + r) * n;
        for (int64_t j = 0; j < n; ++j) {
          // beta == 0 never reads out, which may hold garbage (BLAS's rule).
          float value = config.alpha * acc[r * n + j];
          if (config.beta != 0.0f) {
            value = value + config.beta * LoadElement(out_row, j);
          }
          StoreElement(out_row, j, value);
        }
      }
    }
  }
}

}  // namespace

void AddScaledRow(float* __restrict acc, const float* __restrict row,
                  float scale, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int u = 0; u < 8; ++u) acc[j + u] += scale * row[j + u];
  }
  for (; j < n; ++j) acc[j] += scale * row[j];
}

se::HostKernelFn GemmHostKernel(const GemmConfig& config) {
  return [config](const se::KernelArgs& args,
                  const se::LaunchDimensions&) -> absl::Status {
    RETURN_IF_ERROR(CheckArguments(config, args));
    VLOG(3) << "host gemm " << config.ToString();
    if (config.type == se::blas::DataType::kBF16 &&
        config.output_type == se::blas::DataType::kF32) {
      RunGemm(config, args.ptr<const uint16_t>(0), args.ptr<const uint16_t>(1),
              args.ptr<float>(2));
    } else if (config.type == se::blas::DataType::kBF16) {
      RunGemm(config, args.ptr<const uint16_t>(0), args.ptr<const uint16_t>(1),
              args.ptr<uint16_t>(2));
    } else {
      RunGemm(config, args.ptr<const float>(0), args.ptr<const float>(1),
              args.ptr<float>(2));
    }
    return absl::OkStatus();
  };
}

}  // namespace xla_lite::gpu
