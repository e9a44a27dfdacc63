#include "stream_executor/cuda/cuda_dnn.h"

#include "absl/status/status.h"

#if __has_include(<cudnn.h>)
#define XLA_LITE_HAVE_CUDNN 1
#include <cudnn.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/dso_loader.h"
#endif

namespace stream_executor::cuda {

#ifndef XLA_LITE_HAVE_CUDNN

absl::StatusOr<const gpu::GpuDnnApi*> LoadCudnnApi() {
  return absl::FailedPreconditionError(
      "cuDNN: this build had no cudnn.h, so convolutions use the emitted "
      "kernels");
}

#else

namespace {

using dnn::ConvolutionCall;
using dnn::ConvolutionKind;
using gpu::GpuDnnHandle;
using gpu::GpuDnnPlan;
using gpu::GpuStreamHandle;

constexpr char kDisplayName[] = "cuDNN";
// Where the packed filter ends and the algorithm's workspace begins.
constexpr size_t kWorkspaceAlignment = 256;
// cuDNN takes 4- and 5-dimensional arrays: 1-d convolutions get a unit
// spatial dimension in front.
constexpr int kMinSpatialDims = 2;

#define CUDNN_FUNCTIONS(X)                              \
  X(cudnnGetVersion)                                    \
  X(cudnnGetErrorString)                                \
  X(cudnnCreate)                                        \
  X(cudnnDestroy)                                       \
  X(cudnnSetStream)                                     \
  X(cudnnCreateTensorDescriptor)                        \
  X(cudnnDestroyTensorDescriptor)                       \
  X(cudnnSetTensorNdDescriptor)                         \
  X(cudnnCreateFilterDescriptor)                        \
  X(cudnnDestroyFilterDescriptor)                       \
  X(cudnnSetFilterNdDescriptor)                         \
  X(cudnnCreateConvolutionDescriptor)                   \
  X(cudnnDestroyConvolutionDescriptor)                  \
  X(cudnnSetConvolutionNdDescriptor)                    \
  X(cudnnSetConvolutionMathType)                        \
  X(cudnnSetConvolutionGroupCount)                      \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount)        \
  X(cudnnFindConvolutionForwardAlgorithm)               \
  X(cudnnConvolutionForward)                            \
  X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount) \
  X(cudnnFindConvolutionBackwardFilterAlgorithm)        \
  X(cudnnConvolutionBackwardFilter)                     \
  X(cudnnTransformTensor)

struct CudnnFunctions {
#define DECLARE(name) decltype(&::name) name = nullptr;
  CUDNN_FUNCTIONS(DECLARE)
#undef DECLARE
};

CudnnFunctions& Cudnn() {
  static CudnnFunctions* functions = new CudnnFunctions;
  return *functions;
}

// One shape's descriptors. The filter is handed to cuDNN packed (the
// layouts its filter descriptors can name); a caller's filter in another
// layout is transformed into the workspace first (forward) or from it
// after (backward filter).
struct CudnnPlan {
  ConvolutionKind kind = ConvolutionKind::kForward;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  // The filter as the caller lays it out and as `w` packs it; both null
  // when they are the same.
  cudnnTensorDescriptor_t w_given = nullptr, w_packed = nullptr;
  size_t packed_filter_bytes = 0;  // Aligned; 0 when used in place.
  int algorithm = -1;
  size_t algorithm_workspace = 0;
};

CudnnPlan* ToPlan(GpuDnnPlan plan) {
  return reinterpret_cast<CudnnPlan*>(plan);
}
cudnnHandle_t ToCudnn(GpuDnnHandle handle) {
  return reinterpret_cast<cudnnHandle_t>(handle);
}

const char* ErrorString(int error) {
  return Cudnn().cudnnGetErrorString(static_cast<cudnnStatus_t>(error));
}

int Create(GpuDnnHandle* handle) {
  cudnnHandle_t cudnn = nullptr;
  cudnnStatus_t status = Cudnn().cudnnCreate(&cudnn);
  *handle = reinterpret_cast<GpuDnnHandle>(cudnn);
  return status;
}

int Destroy(GpuDnnHandle handle) {
  return Cudnn().cudnnDestroy(ToCudnn(handle));
}

// A layout with at least kMinSpatialDims spatial dimensions, as ints.
struct Dims {
  std::vector<int> dims, strides;
};

Dims Widened(const dnn::TensorLayout& layout) {
  Dims d;
  d.dims.assign(layout.dims.begin(), layout.dims.end());
  d.strides.assign(layout.strides.begin(), layout.strides.end());
  while (d.dims.size() < 2 + kMinSpatialDims) {
    // A unit dimension outside the first spatial one.
    d.dims.insert(d.dims.begin() + 2, 1);
    d.strides.insert(d.strides.begin() + 2, d.dims[3] * d.strides[3]);
  }
  return d;
}

// The packed strides of a filter's dims in `format`: KCRS (NCHW) or KRSC
// (NHWC).
std::vector<int> PackedStrides(const std::vector<int>& dims,
                               cudnnTensorFormat_t format) {
  const size_t rank = dims.size();
  std::vector<size_t> inner_to_outer;
  if (format == CUDNN_TENSOR_NHWC) inner_to_outer.push_back(1);
  for (size_t i = rank; i-- > 2;) inner_to_outer.push_back(i);
  if (format != CUDNN_TENSOR_NHWC) inner_to_outer.push_back(1);
  inner_to_outer.push_back(0);
  std::vector<int> strides(rank);
  int stride = 1;
  for (size_t i : inner_to_outer) {
    strides[i] = stride;
    stride *= dims[i];
  }
  return strides;
}

cudnnStatus_t TensorDescriptor(const Dims& d, cudnnTensorDescriptor_t* desc) {
  CudnnFunctions& f = Cudnn();
  cudnnStatus_t status = f.cudnnCreateTensorDescriptor(desc);
  if (status != CUDNN_STATUS_SUCCESS) return status;
  return f.cudnnSetTensorNdDescriptor(*desc, CUDNN_DATA_FLOAT, d.dims.size(),
                                      d.dims.data(), d.strides.data());
}

int PlanDestroy(GpuDnnPlan handle) {
  CudnnPlan* plan = ToPlan(handle);
  if (plan == nullptr) return CUDNN_STATUS_SUCCESS;
  CudnnFunctions& f = Cudnn();
  for (cudnnTensorDescriptor_t t :
       {plan->x, plan->y, plan->w_given, plan->w_packed}) {
    if (t != nullptr) f.cudnnDestroyTensorDescriptor(t);
  }
  if (plan->w != nullptr) f.cudnnDestroyFilterDescriptor(plan->w);
  if (plan->conv != nullptr) f.cudnnDestroyConvolutionDescriptor(plan->conv);
  delete plan;
  return CUDNN_STATUS_SUCCESS;
}

#define RETURN_IF_CUDNN_ERROR(expr)                      \
  do {                                                   \
    cudnnStatus_t status_ = (expr);                      \
    if (status_ != CUDNN_STATUS_SUCCESS) return status_; \
  } while (0)

cudnnStatus_t DescribeFilter(const ConvolutionCall& call, CudnnPlan& plan) {
  CudnnFunctions& f = Cudnn();
  const Dims given = Widened(call.filter);
  // Channels-innermost activations pair with a channels-innermost filter.
  const cudnnTensorFormat_t format =
      call.input.strides[1] == 1 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  RETURN_IF_CUDNN_ERROR(f.cudnnCreateFilterDescriptor(&plan.w));
  RETURN_IF_CUDNN_ERROR(f.cudnnSetFilterNdDescriptor(
      plan.w, CUDNN_DATA_FLOAT, format, given.dims.size(), given.dims.data()));
  Dims packed = given;
  packed.strides = PackedStrides(given.dims, format);
  if (packed.strides == given.strides) return CUDNN_STATUS_SUCCESS;
  RETURN_IF_CUDNN_ERROR(TensorDescriptor(given, &plan.w_given));
  RETURN_IF_CUDNN_ERROR(TensorDescriptor(packed, &plan.w_packed));
  size_t bytes = sizeof(float);
  for (int d : given.dims) bytes *= d;
  plan.packed_filter_bytes = (bytes + kWorkspaceAlignment - 1) /
                             kWorkspaceAlignment * kWorkspaceAlignment;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t DescribeConvolution(const ConvolutionCall& call,
                                  CudnnPlan& plan) {
  CudnnFunctions& f = Cudnn();
  std::vector<int> padding(call.padding.begin(), call.padding.end());
  std::vector<int> strides(call.strides.begin(), call.strides.end());
  std::vector<int> dilations(call.dilations.begin(), call.dilations.end());
  while (padding.size() < kMinSpatialDims) {
    padding.insert(padding.begin(), 0);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
  }
  RETURN_IF_CUDNN_ERROR(f.cudnnCreateConvolutionDescriptor(&plan.conv));
  RETURN_IF_CUDNN_ERROR(f.cudnnSetConvolutionNdDescriptor(
      plan.conv, padding.size(), padding.data(), strides.data(),
      dilations.data(), call.flip ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
      CUDNN_DATA_FLOAT));
  // Full f32 products: no TF32 tensor cores.
  RETURN_IF_CUDNN_ERROR(
      f.cudnnSetConvolutionMathType(plan.conv, CUDNN_FMA_MATH));
  return f.cudnnSetConvolutionGroupCount(plan.conv, call.groups);
}

int PlanCreate(const ConvolutionCall& call, GpuDnnPlan* handle) {
  auto* plan = new CudnnPlan;
  *handle = reinterpret_cast<GpuDnnPlan>(plan);
  plan->kind = call.kind;
  RETURN_IF_CUDNN_ERROR(TensorDescriptor(Widened(call.input), &plan->x));
  RETURN_IF_CUDNN_ERROR(TensorDescriptor(Widened(call.output), &plan->y));
  RETURN_IF_CUDNN_ERROR(DescribeFilter(call, *plan));
  return DescribeConvolution(call, *plan);
}

// The first (fastest) of `perf` that is deterministic, full f32 and fits
// `max_workspace`.
template <typename Perf>
bool PickAlgorithm(const std::vector<Perf>& perf, int count,
                   size_t max_workspace, CudnnPlan& plan) {
  for (int i = 0; i < count; ++i) {
    const Perf& p = perf[i];
    if (p.status != CUDNN_STATUS_SUCCESS ||
        p.determinism != CUDNN_DETERMINISTIC ||
        p.mathType == CUDNN_TENSOR_OP_MATH ||
        p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ||
        p.memory > max_workspace) {
      continue;
    }
    VLOG(1) << "cuDNN algorithm " << static_cast<int>(p.algo) << ": " << p.time
            << " ms, " << p.memory << " bytes of workspace";
    plan.algorithm = static_cast<int>(p.algo);
    plan.algorithm_workspace = p.memory;
    return true;
  }
  return false;
}

int PlanChoose(GpuDnnHandle handle, GpuDnnPlan plan_handle,
               GpuStreamHandle stream, size_t max_workspace,
               size_t* workspace_bytes) {
  CudnnFunctions& f = Cudnn();
  CudnnPlan& plan = *ToPlan(plan_handle);
  cudnnHandle_t cudnn = ToCudnn(handle);
  RETURN_IF_CUDNN_ERROR(
      f.cudnnSetStream(cudnn, reinterpret_cast<cudaStream_t>(stream)));
  int max_count = 0, count = 0;
  bool found;
  if (plan.kind == ConvolutionKind::kForward) {
    RETURN_IF_CUDNN_ERROR(
        f.cudnnGetConvolutionForwardAlgorithmMaxCount(cudnn, &max_count));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(max_count);
    RETURN_IF_CUDNN_ERROR(f.cudnnFindConvolutionForwardAlgorithm(
        cudnn, plan.x, plan.w, plan.conv, plan.y, max_count, &count,
        perf.data()));
    found = PickAlgorithm(perf, count, max_workspace, plan);
  } else {
    RETURN_IF_CUDNN_ERROR(f.cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(
        cudnn, &max_count));
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(max_count);
    RETURN_IF_CUDNN_ERROR(f.cudnnFindConvolutionBackwardFilterAlgorithm(
        cudnn, plan.x, plan.y, plan.conv, plan.w, max_count, &count,
        perf.data()));
    found = PickAlgorithm(perf, count, max_workspace, plan);
  }
  if (!found) return CUDNN_STATUS_NOT_SUPPORTED;
  *workspace_bytes = plan.packed_filter_bytes + plan.algorithm_workspace;
  return CUDNN_STATUS_SUCCESS;
}

int PlanRun(GpuDnnHandle handle, GpuDnnPlan plan_handle, GpuStreamHandle stream,
            const ConvolutionCall& call, void* workspace,
            size_t workspace_bytes) {
  CudnnFunctions& f = Cudnn();
  const CudnnPlan& plan = *ToPlan(plan_handle);
  cudnnHandle_t cudnn = ToCudnn(handle);
  if (plan.algorithm < 0 ||
      workspace_bytes < plan.packed_filter_bytes + plan.algorithm_workspace) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  RETURN_IF_CUDNN_ERROR(
      f.cudnnSetStream(cudnn, reinterpret_cast<cudaStream_t>(stream)));
  const float one = 1.0f, zero = 0.0f;
  void* packed = plan.packed_filter_bytes > 0 ? workspace : nullptr;
  void* algorithm_workspace =
      static_cast<char*>(workspace) + plan.packed_filter_bytes;
  if (plan.kind == ConvolutionKind::kForward) {
    const void* w = call.filter_data.opaque();
    if (packed != nullptr) {
      RETURN_IF_CUDNN_ERROR(f.cudnnTransformTensor(
          cudnn, &one, plan.w_given, w, &zero, plan.w_packed, packed));
      w = packed;
    }
    return f.cudnnConvolutionForward(
        cudnn, &one, plan.x, call.input_data.opaque(), plan.w, w, plan.conv,
        static_cast<cudnnConvolutionFwdAlgo_t>(plan.algorithm),
        algorithm_workspace, plan.algorithm_workspace, &zero, plan.y,
        call.output_data.opaque());
  }
  void* dw = packed != nullptr ? packed : call.filter_data.opaque();
  RETURN_IF_CUDNN_ERROR(f.cudnnConvolutionBackwardFilter(
      cudnn, &one, plan.x, call.input_data.opaque(), plan.y,
      call.output_data.opaque(), plan.conv,
      static_cast<cudnnConvolutionBwdFilterAlgo_t>(plan.algorithm),
      algorithm_workspace, plan.algorithm_workspace, &zero, plan.w, dw));
  if (packed == nullptr) return CUDNN_STATUS_SUCCESS;
  return f.cudnnTransformTensor(cudnn, &one, plan.w_packed, packed, &zero,
                                plan.w_given, call.filter_data.opaque());
}

absl::StatusOr<const gpu::GpuDnnApi*> Load() {
  ASSIGN_OR_RETURN(
      void* library,
      gpu::OpenLibrary(kDisplayName,
                       gpu::LibraryCandidates("libcudnn.so.9",
                                              {"/usr/local/cuda/lib64",
                                               "/usr/lib/x86_64-linux-gnu"})));
  CudnnFunctions& f = Cudnn();
#define RESOLVE(name) \
  RETURN_IF_ERROR(gpu::ResolveFunction(library, kDisplayName, #name, &f.name));
  CUDNN_FUNCTIONS(RESOLVE)
#undef RESOLVE
  const size_t version = f.cudnnGetVersion();
  if (version < 90000) {
    return absl::FailedPreconditionError(
        absl::StrCat(kDisplayName, " ", version,
                     " is older than 9.0, which this build "
                     "expects; convolutions use the emitted kernels"));
  }
  VLOG(1) << "Loaded " << kDisplayName << " " << version;
  static gpu::GpuDnnApi api = {
      .display_name = kDisplayName,
      .error_string = &ErrorString,
      .create = &Create,
      .destroy = &Destroy,
      .plan_create = &PlanCreate,
      .plan_destroy = &PlanDestroy,
      .plan_choose = &PlanChoose,
      .plan_run = &PlanRun,
  };
  return &api;
}

}  // namespace

absl::StatusOr<const gpu::GpuDnnApi*> LoadCudnnApi() {
  static const absl::StatusOr<const gpu::GpuDnnApi*>* api =
      new absl::StatusOr<const gpu::GpuDnnApi*>(Load());
  return *api;
}

#endif  // XLA_LITE_HAVE_CUDNN

}  // namespace stream_executor::cuda
