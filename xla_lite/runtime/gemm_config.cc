#include "xla_lite/runtime/gemm_config.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"

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

// Checks that every element of every batch of a stored rows x cols matrix
// lies inside the operand's buffer.
absl::Status CheckOperand(const char* name, const GemmOperandLayout& layout,
                          const Matrix& stored,
                          const std::vector<int64_t>& batch_strides,
                          const std::vector<GemmBatchDim>& batch_dims) {
  if (layout.ld < std::max<int64_t>(stored.cols, 1)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: leading dimension %d is shorter than its rows of %d", name,
        layout.ld, stored.cols));
  }
  int64_t last = 0;
  for (size_t i = 0; i < batch_dims.size(); ++i) {
    if (batch_dims[i].size == 0) return absl::OkStatus();
    if (batch_strides[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: negative batch stride", name));
    }
    last += (batch_dims[i].size - 1) * batch_strides[i];
  }
  if (stored.rows == 0 || stored.cols == 0) return absl::OkStatus();
  last += (stored.rows - 1) * layout.ld + stored.cols - 1;
  if (last >= layout.shape.ElementCount()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: element %d is read, but %s holds %d", name, last,
        layout.shape.ToString(), layout.shape.ElementCount()));
  }
  return absl::OkStatus();
}

// `address` from element `offset` on; empty past its end, which the BLAS
// call's validation then reports.
se::DeviceAddressBase ElementsFrom(se::DeviceAddressBase address,
                                   int64_t offset, se::blas::DataType type) {
  uint64_t bytes = std::min<uint64_t>(offset * se::blas::SizeOf(type),
                                      address.size());
  return address.GetByteSlice(bytes, address.size() - bytes);
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
  int64_t batch = rank == 3 ? output.dimensions(0) : 1;
  if (rank == 3 &&
      (lhs.dimensions(0) != batch || rhs.dimensions(0) != batch)) {
    return error("batch dimensions differ");
  }
  Matrix a = MinorDims(lhs), b = MinorDims(rhs), c = MinorDims(output);
  int64_t m = transpose_lhs ? a.cols : a.rows;
  int64_t k = transpose_lhs ? a.rows : a.cols;
  int64_t rhs_k = transpose_rhs ? b.cols : b.rows;
  int64_t n = transpose_rhs ? b.rows : b.cols;
  if (rhs_k != k) return error("contracting dimensions differ");
  if (c.rows != m || c.cols != n) {
    return error("output dimensions do not match the operands");
  }
  std::vector<GemmBatchDim> batch_dims;
  if (rank == 3) {
    batch_dims.push_back({batch, a.rows * a.cols, b.rows * b.cols});
  }
  absl::StatusOr<GemmConfig> config = ForStrided(
      {lhs, transpose_lhs, std::max<int64_t>(a.cols, 1)},
      {rhs, transpose_rhs, std::max<int64_t>(b.cols, 1)}, output,
      std::move(batch_dims), m, n, k, alpha, beta);
  if (!config.ok()) return error(config.status().message());
  return config;
}

absl::StatusOr<GemmConfig> GemmConfig::ForStrided(
    const GemmOperandLayout& lhs, const GemmOperandLayout& rhs,
    const Shape& output, std::vector<GemmBatchDim> batch_dims, int64_t m,
    int64_t n, int64_t k, float alpha, float beta) {
  GemmConfig config;
  if (lhs.shape.element_type() != rhs.shape.element_type()) {
    return absl::InvalidArgumentError("element types of lhs and rhs differ");
  }
  ASSIGN_OR_RETURN(config.type, BlasType(lhs.shape.element_type()));
  ASSIGN_OR_RETURN(config.output_type, BlasType(output.element_type()));
  if (config.output_type != config.type &&
      config.output_type != se::blas::DataType::kF32) {
    return absl::InvalidArgumentError(
        "the output has the operands' element type, or is f32");
  }
  if (m < 0 || n < 0 || k < 0) {
    return absl::InvalidArgumentError("negative matrix dimension");
  }
  std::vector<int64_t> lhs_strides, rhs_strides;
  for (const GemmBatchDim& dim : batch_dims) {
    if (dim.size < 0) {
      return absl::InvalidArgumentError("negative batch dimension");
    }
    config.batch *= dim.size;
    lhs_strides.push_back(dim.lhs_stride);
    rhs_strides.push_back(dim.rhs_stride);
  }
  if (output.ElementCount() != config.batch * m * n) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the output holds %d elements, %d batches of %dx%d need %d",
        output.ElementCount(), config.batch, m, n, config.batch * m * n));
  }
  RETURN_IF_ERROR(CheckOperand(
      "lhs", lhs, lhs.transposed ? Matrix{k, m} : Matrix{m, k}, lhs_strides,
      batch_dims));
  RETURN_IF_ERROR(CheckOperand(
      "rhs", rhs, rhs.transposed ? Matrix{n, k} : Matrix{k, n}, rhs_strides,
      batch_dims));
  config.lhs_shape = lhs.shape;
  config.rhs_shape = rhs.shape;
  config.output_shape = output;
  config.transpose_lhs = lhs.transposed;
  config.transpose_rhs = rhs.transposed;
  config.lhs_ld = lhs.ld;
  config.rhs_ld = rhs.ld;
  config.batch_dims = std::move(batch_dims);
  config.m = m;
  config.n = n;
  config.k = k;
  config.alpha = alpha;
  config.beta = beta;
  return config;
}

std::pair<int64_t, int64_t> GemmConfig::OperandOffsets(int64_t b) const {
  int64_t lhs = 0, rhs = 0;
  for (auto dim = batch_dims.rbegin(); dim != batch_dims.rend(); ++dim) {
    int64_t index = b % dim->size;
    b /= dim->size;
    lhs += index * dim->lhs_stride;
    rhs += index * dim->rhs_stride;
  }
  return {lhs, rhs};
}

bool GemmConfig::IsDense() const {
  int64_t lhs_cols = transpose_lhs ? m : k;
  int64_t rhs_cols = transpose_rhs ? k : n;
  if (lhs_ld != std::max<int64_t>(lhs_cols, 1) ||
      rhs_ld != std::max<int64_t>(rhs_cols, 1) || batch_dims.size() > 1) {
    return false;
  }
  return batch_dims.empty() || (batch_dims[0].lhs_stride == m * k &&
                                batch_dims[0].rhs_stride == k * n);
}

std::vector<se::blas::GemmCall> GemmConfig::ToBlasCalls(
    se::DeviceAddressBase lhs, se::DeviceAddressBase rhs,
    se::DeviceAddressBase output) const {
  using se::blas::Transpose;
  if (batch == 0) return {};
  se::blas::GemmCall call;
  call.type = type;
  if (output_type != type) call.c_type = output_type;
  call.transa = transpose_rhs ? Transpose::kTranspose : Transpose::kNoTranspose;
  call.transb = transpose_lhs ? Transpose::kTranspose : Transpose::kNoTranspose;
  call.m = n;
  call.n = m;
  call.k = k;
  call.alpha = alpha;
  call.beta = beta;
  call.allow_tf32 = allow_tf32 && type == se::blas::DataType::kF32;
  call.lda = rhs_ld;
  call.ldb = lhs_ld;
  call.ldc = std::max<int64_t>(n, 1);
  call.stride_a = k * n;
  call.stride_b = m * k;
  call.stride_c = m * n;
  // The library strides over the largest batch dimension; the others are
  // walked here, one call per index.
  int64_t strided = -1;
  for (size_t i = 0; i < batch_dims.size(); ++i) {
    if (strided < 0 || batch_dims[i].size > batch_dims[strided].size) {
      strided = i;
    }
  }
  std::vector<int64_t> output_strides(batch_dims.size());
  for (int64_t i = batch_dims.size() - 1, stride = m * n; i >= 0; --i) {
    output_strides[i] = stride;
    stride *= batch_dims[i].size;
  }
  if (strided >= 0) {
    call.batch_count = batch_dims[strided].size;
    call.stride_a = batch_dims[strided].rhs_stride;
    call.stride_b = batch_dims[strided].lhs_stride;
    call.stride_c = output_strides[strided];
  }
  std::vector<se::blas::GemmCall> calls;
  for (int64_t outer = 0; outer < batch / call.batch_count; ++outer) {
    int64_t rest = outer, lhs_offset = 0, rhs_offset = 0, output_offset = 0;
    for (int64_t i = batch_dims.size() - 1; i >= 0; --i) {
      if (i == strided) continue;
      int64_t index = rest % batch_dims[i].size;
      rest /= batch_dims[i].size;
      lhs_offset += index * batch_dims[i].lhs_stride;
      rhs_offset += index * batch_dims[i].rhs_stride;
      output_offset += index * output_strides[i];
    }
    call.a = ElementsFrom(rhs, rhs_offset, type);
    call.b = ElementsFrom(lhs, lhs_offset, type);
    call.c = ElementsFrom(output, output_offset, output_type);
    calls.push_back(call);
  }
  return calls;
}

std::string GemmConfig::ToString() const {
  std::string product = absl::StrFormat(
      "%s%s x %s%s -> %s alpha=%g beta=%g", lhs_shape.ToString(),
      transpose_lhs ? "^T" : "", rhs_shape.ToString(),
      transpose_rhs ? "^T" : "", output_shape.ToString(), alpha, beta);
  if (allow_tf32) product += " tf32";
  if (f64_tensor_cores) product += " f64tc";
  if (IsDense()) return product;
  std::vector<std::string> dims;
  for (const GemmBatchDim& dim : batch_dims) {
    dims.push_back(
        absl::StrFormat("%d@%d/%d", dim.size, dim.lhs_stride, dim.rhs_stride));
  }
  return absl::StrFormat("%s (m=%d n=%d k=%d, ld %d/%d, batches [%s])",
                         product, m, n, k, lhs_ld, rhs_ld,
                         absl::StrJoin(dims, " "));
}

}  // namespace xla_lite::gpu
