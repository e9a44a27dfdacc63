#include "xla_lite/runtime/gemm_config.h"

#include "absl/strings/str_format.h"

namespace xla_lite::gpu {
namespace {

absl::StatusOr<se::blas::DataType> BlasType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F32:
      return se::blas::DataType::kF32;
    case PrimitiveType::BF16:
      return se::blas::DataType::kBF16;
    default:
      return absl::UnimplementedError(
          absl::StrFormat("gemm of %s is not supported (f32 and bf16 are)",
                          primitive_util::LowercasePrimitiveTypeName(type)));
  }
}

// The two minor dimensions of a rank-2 or rank-3 operand, as stored.
struct Matrix {
  int64_t rows, cols;
};
Matrix MinorDims(const Shape& shape) {
  int64_t r = shape.rank();
  return {shape.dimensions(r - 2), shape.dimensions(r - 1)};
}

}  // namespace

absl::StatusOr<GemmConfig> GemmConfig::For(const Shape& lhs,
                                           bool transpose_lhs,
                                           const Shape& rhs,
                                           bool transpose_rhs,
                                           const Shape& output, float alpha,
                                           float beta) {
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "gemm %s%s x %s%s -> %s: %s", lhs.ToString(), transpose_lhs ? "^T" : "",
        rhs.ToString(), transpose_rhs ? "^T" : "", output.ToString(), why));
  };
  int64_t rank = output.rank();
  if ((rank != 2 && rank != 3) || lhs.rank() != rank || rhs.rank() != rank) {
    return error("operands must all be rank 2, or all rank 3 with a batch");
  }
  if (lhs.element_type() != output.element_type() ||
      rhs.element_type() != output.element_type()) {
    return error("element types differ");
  }
  GemmConfig config;
  auto type = BlasType(output.element_type());
  if (!type.ok()) return error(type.status().message());
  config.type = *type;
  config.batch = rank == 3 ? output.dimensions(0) : 1;
  if (rank == 3 &&
      (lhs.dimensions(0) != config.batch || rhs.dimensions(0) != config.batch)) {
    return error("batch dimensions differ");
  }
  Matrix a = MinorDims(lhs), b = MinorDims(rhs), c = MinorDims(output);
  config.m = transpose_lhs ? a.cols : a.rows;
  config.k = transpose_lhs ? a.rows : a.cols;
  int64_t rhs_k = transpose_rhs ? b.cols : b.rows;
  config.n = transpose_rhs ? b.rows : b.cols;
  if (rhs_k != config.k) return error("contracting dimensions differ");
  if (c.rows != config.m || c.cols != config.n) {
    return error("output dimensions do not match the operands");
  }
  config.lhs_shape = lhs;
  config.rhs_shape = rhs;
  config.output_shape = output;
  config.transpose_lhs = transpose_lhs;
  config.transpose_rhs = transpose_rhs;
  config.alpha = alpha;
  config.beta = beta;
  return config;
}

se::blas::GemmCall GemmConfig::ToBlasCall(se::DeviceAddressBase lhs,
                                          se::DeviceAddressBase rhs,
                                          se::DeviceAddressBase output) const {
  using se::blas::Transpose;
  se::blas::GemmCall call;
  call.type = type;
  call.transa = transpose_rhs ? Transpose::kTranspose : Transpose::kNoTranspose;
  call.transb = transpose_lhs ? Transpose::kTranspose : Transpose::kNoTranspose;
  call.m = n;
  call.n = m;
  call.k = k;
  call.alpha = alpha;
  call.beta = beta;
  call.a = rhs;
  call.b = lhs;
  call.c = output;
  // Leading dimension = the stored row length of each row-major operand.
  call.lda = transpose_rhs ? k : n;
  call.ldb = transpose_lhs ? m : k;
  call.ldc = n;
  call.batch_count = batch;
  call.stride_a = k * n;
  call.stride_b = m * k;
  call.stride_c = m * n;
  return call;
}

std::string GemmConfig::ToString() const {
  return absl::StrFormat("%s%s x %s%s -> %s alpha=%g beta=%g",
                         lhs_shape.ToString(), transpose_lhs ? "^T" : "",
                         rhs_shape.ToString(), transpose_rhs ? "^T" : "",
                         output_shape.ToString(), alpha, beta);
}

}  // namespace xla_lite::gpu
