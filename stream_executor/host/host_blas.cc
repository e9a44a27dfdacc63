#include "stream_executor/host/host_blas.h"

#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Core"
#include "base/array_size.h"
#include "base/host_memory.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/host/host_stream.h"

namespace stream_executor::host {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
using ConstMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;
using MutableMap = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;

// C = alpha * op(A) * op(B) + beta * C on f32 column-major views. With beta
// == 0 the old C is never read, so uninitialized output memory (NaN
// patterns) cannot leak into the result, as BLAS specifies.
void GemmF32(const blas::GemmCall& call, const float* a, const float* b,
             float* c) {
  bool ta = call.transa == blas::Transpose::kTranspose;
  bool tb = call.transb == blas::Transpose::kTranspose;
  ConstMap A(a, ta ? call.k : call.m, ta ? call.m : call.k,
             Eigen::OuterStride<>(call.lda));
  ConstMap B(b, tb ? call.n : call.k, tb ? call.k : call.n,
             Eigen::OuterStride<>(call.ldb));
  MutableMap C(c, call.m, call.n, Eigen::OuterStride<>(call.ldc));
  Matrix product = ta ? (tb ? Matrix(A.transpose() * B.transpose())
                            : Matrix(A.transpose() * B))
                      : (tb ? Matrix(A * B.transpose()) : Matrix(A * B));
  if (call.beta == 0.0f) {
    C = call.alpha * product;
  } else {
    C = call.alpha * product + call.beta * C;
  }
}

// Elements a column-major rows x cols view with leading dimension `ld`
// spans: the last column ends after `rows`, not after `ld`.
int64_t SpannedElements(int64_t rows, int64_t cols, int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : (cols - 1) * ld + rows;
}

std::vector<float> Widen(const void* data, int64_t offset, int64_t count) {
  const auto* src = static_cast<const Eigen::bfloat16*>(data) + offset;
  std::vector<float> out(count);
  for (int64_t i = 0; i < count; ++i) out[i] = static_cast<float>(src[i]);
  return out;
}

// bf16 operands are widened to f32 and multiplied; a bf16 C is widened
// first and rounded back after, an f32 C is written directly.
void GemmBF16(const blas::GemmCall& call, int64_t batch) {
  bool ta = call.transa == blas::Transpose::kTranspose;
  bool tb = call.transb == blas::Transpose::kTranspose;
  std::vector<float> a = Widen(
      call.a.opaque(), batch * call.stride_a,
      SpannedElements(ta ? call.k : call.m, ta ? call.m : call.k, call.lda));
  std::vector<float> b = Widen(
      call.b.opaque(), batch * call.stride_b,
      SpannedElements(tb ? call.n : call.k, tb ? call.k : call.n, call.ldb));
  if (call.CType() == blas::DataType::kF32) {
    GemmF32(call, a.data(), b.data(),
            static_cast<float*>(call.c.opaque()) + batch * call.stride_c);
    return;
  }
  std::vector<float> c = Widen(call.c.opaque(), batch * call.stride_c,
                               SpannedElements(call.m, call.n, call.ldc));
  GemmF32(call, a.data(), b.data(), c.data());
  auto* out =
      static_cast<Eigen::bfloat16*>(call.c.opaque()) + batch * call.stride_c;
  for (uint64_t j = 0; j < call.n; ++j) {
    for (uint64_t i = 0; i < call.m; ++i) {
      out[j * call.ldc + i] = Eigen::bfloat16(c[j * call.ldc + i]);
    }
  }
}

// Bytes of the f32 temporaries one batch of `call` makes: the product, as
// large as C, and for bf16 the widened copies of A, B and C. Saturates.
int64_t TemporaryBytes(const blas::GemmCall& call) {
  auto times = [](int64_t a, int64_t b) {
    return base::CheckedMultiply(a, b).value_or(
        std::numeric_limits<int64_t>::max());
  };
  int64_t elements = times(call.m, call.n);
  if (call.type == blas::DataType::kBF16) {
    bool ta = call.transa == blas::Transpose::kTranspose;
    bool tb = call.transb == blas::Transpose::kTranspose;
    for (int64_t spanned :
         {SpannedElements(ta ? call.k : call.m, ta ? call.m : call.k, call.lda),
          SpannedElements(tb ? call.n : call.k, tb ? call.k : call.n, call.ldb),
          SpannedElements(call.m, call.n, call.ldc)}) {
      elements = base::CheckedAdd(elements, spanned)
                     .value_or(std::numeric_limits<int64_t>::max());
    }
  }
  return times(elements, sizeof(float));
}

}  // namespace

void HostBlas::RunGemm(const blas::GemmCall& call) {
  for (int64_t batch = 0; batch < call.batch_count; ++batch) {
    if (call.type == blas::DataType::kBF16) {
      GemmBF16(call, batch);
      continue;
    }
    GemmF32(call, static_cast<const float*>(call.a.opaque()) + batch * call.stride_a,
            static_cast<const float*>(call.b.opaque()) + batch * call.stride_b,
            static_cast<float*>(call.c.opaque()) + batch * call.stride_c);
  }
}

absl::Status HostBlas::Gemm(Stream* stream, const blas::GemmCall& call) {
  RETURN_IF_ERROR(call.Validate());
  // Checked here, as an error, rather than thrown as std::bad_alloc on the
  // stream's thread, which would abort the process.
  RETURN_IF_ERROR(base::CheckHostAllocation(TemporaryBytes(call),
                                            "host gemm temporaries"));
  auto* host_stream = dynamic_cast<HostStream*>(stream);
  if (host_stream == nullptr) {
    return absl::InvalidArgumentError("host gemm needs a host stream");
  }
  VLOG(5) << "host " << call.ToString();
  return host_stream->Enqueue([call] {
    RunGemm(call);
    return absl::OkStatus();
  });
}

}  // namespace stream_executor::host
