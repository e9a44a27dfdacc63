#include "stream_executor/cuda/cuda_blas_lt.h"

#include <cstring>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/cuda/cublas_includes.h"
#include "stream_executor/gpu/dso_loader.h"

namespace stream_executor::cuda {
namespace {

using gpu::GpuBlasElementType;
using gpu::GpuBlasGemm;
using gpu::GpuBlasLtAlgorithm;
using gpu::GpuBlasLtHandle;
using gpu::GpuBlasLtPlan;
using gpu::GpuBlasLtShape;
using gpu::GpuStreamHandle;

constexpr char kDisplayName[] = "cuBLASLt";

static_assert(sizeof(GpuBlasLtAlgorithm::data) == sizeof(cublasLtMatmulAlgo_t),
              "GpuBlasLtAlgorithm must hold a cublasLtMatmulAlgo_t");

struct CublasLtFunctions {
  decltype(&::cublasLtCreate) create = nullptr;
  decltype(&::cublasLtDestroy) destroy = nullptr;
  decltype(&::cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&::cublasLtMatrixLayoutSetAttribute) layout_set = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&::cublasLtMatmul) matmul = nullptr;
};

CublasLtFunctions& Lt() {
  static CublasLtFunctions* functions = new CublasLtFunctions;
  return *functions;
}

// The descriptors of one shape: D = C in place, so C's layout serves both.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
};

cudaDataType ToCuda(GpuBlasElementType type) {
  return type == GpuBlasElementType::kF32 ? CUDA_R_32F : CUDA_R_16BF;
}

int DestroyPlan(GpuBlasLtPlan handle) {
  auto* plan = reinterpret_cast<Plan*>(handle);
  int first_error = CUBLAS_STATUS_SUCCESS;
  auto keep = [&](cublasStatus_t status) {
    if (first_error == CUBLAS_STATUS_SUCCESS) first_error = status;
  };
  for (cublasLtMatrixLayout_t layout : {plan->a, plan->b, plan->c}) {
    if (layout != nullptr) keep(Lt().layout_destroy(layout));
  }
  if (plan->desc != nullptr) keep(Lt().desc_destroy(plan->desc));
  delete plan;
  return first_error;
}

// A column-major (rows x cols) layout with `batch_count` matrices `stride`
// elements apart.
cublasStatus_t CreateLayout(cudaDataType type, int rows, int cols, int ld,
                            int batch_count, long long stride,
                            cublasLtMatrixLayout_t* layout) {
  cublasStatus_t status = Lt().layout_create(layout, type, rows, cols, ld);
  if (status != CUBLAS_STATUS_SUCCESS || batch_count == 1) return status;
  int32_t count = batch_count;
  int64_t offset = stride;
  status = Lt().layout_set(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                           sizeof(count));
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  return Lt().layout_set(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                         &offset, sizeof(offset));
}

int CreatePlan(const GpuBlasLtShape& s, GpuBlasLtPlan* out) {
  auto* plan = new Plan;
  absl::Cleanup destroy = [&] {
    DestroyPlan(reinterpret_cast<GpuBlasLtPlan>(plan));
  };
  cublasComputeType_t compute =
      s.ab_type == GpuBlasElementType::kF32 && s.allow_tf32
          ? CUBLAS_COMPUTE_32F_FAST_TF32
          : CUBLAS_COMPUTE_32F;
  cublasStatus_t status = Lt().desc_create(&plan->desc, compute, CUDA_R_32F);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  cublasOperation_t ta = s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t tb = s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  status = Lt().desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                         sizeof(ta));
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  status = Lt().desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                         sizeof(tb));
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  // Stored shapes: A is (m x k), or (k x m) when transposed; likewise B.
  status = CreateLayout(ToCuda(s.ab_type), s.transpose_a ? s.k : s.m,
                        s.transpose_a ? s.m : s.k, s.lda, s.batch_count,
                        s.stride_a, &plan->a);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  status = CreateLayout(ToCuda(s.ab_type), s.transpose_b ? s.n : s.k,
                        s.transpose_b ? s.k : s.n, s.ldb, s.batch_count,
                        s.stride_b, &plan->b);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  status = CreateLayout(ToCuda(s.c_type), s.m, s.n, s.ldc, s.batch_count,
                        s.stride_c, &plan->c);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  std::move(destroy).Cancel();
  *out = reinterpret_cast<GpuBlasLtPlan>(plan);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t SetPreferences(cublasLtMatmulPreference_t pref,
                              size_t max_workspace) {
  uint64_t workspace = max_workspace;
  cublasStatus_t status =
      Lt().pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                    sizeof(workspace));
  // Slices of a buffer, and batches of a strided call, are only as aligned
  // as their offsets; the default preference (256 bytes) would offer
  // algorithms that refuse them.
  uint32_t alignment = gpu::kGpuBlasLtMinAlignmentBytes;
  for (cublasLtMatmulPreferenceAttributes_t attribute :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    status = Lt().pref_set(pref, attribute, &alignment, sizeof(alignment));
  }
  return status;
}

int Algorithms(GpuBlasLtHandle handle, GpuBlasLtPlan plan_handle,
               size_t max_workspace, int max, GpuBlasLtAlgorithm* out,
               int* count) {
  *count = 0;
  if (max <= 0) return CUBLAS_STATUS_SUCCESS;
  const auto* plan = reinterpret_cast<const Plan*>(plan_handle);
  cublasLtMatmulPreference_t pref = nullptr;
  cublasStatus_t status = Lt().pref_create(&pref);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  absl::Cleanup destroy = [&] { Lt().pref_destroy(pref); };
  status = SetPreferences(pref, max_workspace);
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  std::vector<cublasLtMatmulHeuristicResult_t> results(max);
  int returned = 0;
  status = Lt().heuristic(reinterpret_cast<cublasLtHandle_t>(handle),
                          plan->desc, plan->a, plan->b, plan->c, plan->c, pref,
                          max, results.data(), &returned);
  // No algorithm for the shape is an empty list, not an error.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return CUBLAS_STATUS_SUCCESS;
  if (status != CUBLAS_STATUS_SUCCESS) return status;
  for (int i = 0; i < returned; ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    GpuBlasLtAlgorithm& algorithm = out[(*count)++];
    std::memcpy(algorithm.data, &results[i].algo, sizeof(algorithm.data));
    algorithm.workspace_bytes = results[i].workspaceSize;
  }
  return CUBLAS_STATUS_SUCCESS;
}

int Matmul(GpuBlasLtHandle handle, GpuBlasLtPlan plan_handle,
           const GpuBlasGemm& g, const GpuBlasLtAlgorithm& algorithm,
           void* workspace, size_t workspace_bytes, GpuStreamHandle stream) {
  const auto* plan = reinterpret_cast<const Plan*>(plan_handle);
  cublasLtMatmulAlgo_t algo;
  std::memcpy(&algo, algorithm.data, sizeof(algo));
  return Lt().matmul(reinterpret_cast<cublasLtHandle_t>(handle), plan->desc,
                     g.alpha, g.a, plan->a, g.b, plan->b, g.beta, g.c, plan->c,
                     g.c, plan->c, &algo, workspace, workspace_bytes,
                     reinterpret_cast<cudaStream_t>(stream));
}

int Create(GpuBlasLtHandle* handle) {
  cublasLtHandle_t lt_handle = nullptr;
  cublasStatus_t status = Lt().create(&lt_handle);
  *handle = reinterpret_cast<GpuBlasLtHandle>(lt_handle);
  return status;
}

int Destroy(GpuBlasLtHandle handle) {
  return Lt().destroy(reinterpret_cast<cublasLtHandle_t>(handle));
}

}  // namespace

absl::Status FillCublasLtEntries(void* library, gpu::GpuBlasApi& api) {
  CublasLtFunctions& f = Lt();
  auto resolve = [&](const char* symbol, auto* out) {
    return gpu::ResolveFunction(library, kDisplayName, symbol, out);
  };
  RETURN_IF_ERROR(resolve("cublasLtCreate", &f.create));
  RETURN_IF_ERROR(resolve("cublasLtDestroy", &f.destroy));
  RETURN_IF_ERROR(resolve("cublasLtMatmulDescCreate", &f.desc_create));
  RETURN_IF_ERROR(resolve("cublasLtMatmulDescDestroy", &f.desc_destroy));
  RETURN_IF_ERROR(resolve("cublasLtMatmulDescSetAttribute", &f.desc_set));
  RETURN_IF_ERROR(resolve("cublasLtMatrixLayoutCreate", &f.layout_create));
  RETURN_IF_ERROR(resolve("cublasLtMatrixLayoutDestroy", &f.layout_destroy));
  RETURN_IF_ERROR(resolve("cublasLtMatrixLayoutSetAttribute", &f.layout_set));
  RETURN_IF_ERROR(resolve("cublasLtMatmulPreferenceCreate", &f.pref_create));
  RETURN_IF_ERROR(resolve("cublasLtMatmulPreferenceDestroy", &f.pref_destroy));
  RETURN_IF_ERROR(
      resolve("cublasLtMatmulPreferenceSetAttribute", &f.pref_set));
  RETURN_IF_ERROR(resolve("cublasLtMatmulAlgoGetHeuristic", &f.heuristic));
  RETURN_IF_ERROR(resolve("cublasLtMatmul", &f.matmul));
  api.lt_create = &Create;
  api.lt_destroy = &Destroy;
  api.lt_plan_create = &CreatePlan;
  api.lt_plan_destroy = &DestroyPlan;
  api.lt_algorithms = &Algorithms;
  api.lt_matmul = &Matmul;
  VLOG(1) << "Loaded cuBLASLt matmul";
  return absl::OkStatus();
}

}  // namespace stream_executor::cuda
