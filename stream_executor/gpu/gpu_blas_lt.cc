#include "stream_executor/gpu/gpu_blas_lt.h"

#include <algorithm>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/gpu_executor.h"
#include "stream_executor/gpu/gpu_stream.h"

namespace stream_executor::gpu {
namespace {

// Each candidate runs once untimed (first-launch costs), then this many
// times back to back; the mean is its time.
constexpr int kTimedRuns = 10;

GpuBlasElementType ToElementType(blas::DataType type) {
  return type == blas::DataType::kF32 ? GpuBlasElementType::kF32
                                      : GpuBlasElementType::kBF16;
}

GpuBlasLtShape ShapeOf(const blas::GemmCall& call, bool allow_tf32) {
  const GpuBlasGemm gemm = ToGpuBlasGemm(call);
  GpuBlasLtShape shape;
  shape.transpose_a = gemm.transpose_a;
  shape.transpose_b = gemm.transpose_b;
  shape.m = gemm.m;
  shape.n = gemm.n;
  shape.k = gemm.k;
  shape.lda = gemm.lda;
  shape.ldb = gemm.ldb;
  shape.ldc = gemm.ldc;
  shape.stride_a = gemm.stride_a;
  shape.stride_b = gemm.stride_b;
  shape.stride_c = gemm.stride_c;
  shape.batch_count = gemm.batch_count;
  shape.ab_type = ToElementType(call.type);
  shape.c_type = ToElementType(call.CType());
  shape.allow_tf32 = allow_tf32 && call.type == blas::DataType::kF32;
  return shape;
}

// Bytes a column-major operand of `batch` (rows x cols) matrices spans.
uint64_t ExtentBytes(uint64_t rows, uint64_t cols, int64_t ld, int64_t batch,
                     int64_t stride, blas::DataType type) {
  uint64_t elements = (batch - 1) * stride + (cols - 1) * ld + rows;
  return elements * blas::SizeOf(type);
}

bool IsAlignedAddress(const DeviceAddressBase& address) {
  return reinterpret_cast<uintptr_t>(address.opaque()) %
             kGpuBlasLtMinAlignmentBytes ==
         0;
}

bool IsAlignedStride(int64_t elements, blas::DataType type) {
  return elements * blas::SizeOf(type) % kGpuBlasLtMinAlignmentBytes == 0;
}

// Scratch device memory from the executor's allocator, freed on scope exit.
class ScratchBuffers {
 public:
  explicit ScratchBuffers(GpuExecutor* executor) : executor_(executor) {}
  ~ScratchBuffers() {
    for (DeviceAddressBase& buffer : buffers_) {
      absl::Status status = executor_->Deallocate(&buffer);
      if (!status.ok()) LOG(ERROR) << "autotuning scratch: " << status;
    }
  }
  absl::StatusOr<void*> Allocate(uint64_t bytes, Stream* stream) {
    if (bytes == 0) return nullptr;
    ASSIGN_OR_RETURN(DeviceAddressBase buffer, executor_->Allocate(bytes));
    buffers_.push_back(buffer);
    // Zeros, not whatever the memory held: no NaN or Inf in the products.
    RETURN_IF_ERROR(stream->Memset8(&buffers_.back(), 0, bytes));
    return buffer.opaque();
  }

 private:
  GpuExecutor* const executor_;
  std::vector<DeviceAddressBase> buffers_;
};

}  // namespace

GpuBlasGemm ToGpuBlasGemm(const blas::GemmCall& call) {
  GpuBlasGemm gemm;
  gemm.transpose_a = call.transa == blas::Transpose::kTranspose;
  gemm.transpose_b = call.transb == blas::Transpose::kTranspose;
  gemm.m = static_cast<int>(call.m);
  gemm.n = static_cast<int>(call.n);
  gemm.k = static_cast<int>(call.k);
  gemm.alpha = &call.alpha;
  gemm.beta = &call.beta;
  gemm.a = call.a.opaque();
  gemm.lda = static_cast<int>(call.lda);
  gemm.stride_a = call.stride_a;
  gemm.b = call.b.opaque();
  gemm.ldb = static_cast<int>(call.ldb);
  gemm.stride_b = call.stride_b;
  gemm.c = call.c.opaque();
  gemm.ldc = static_cast<int>(call.ldc);
  gemm.stride_c = call.stride_c;
  gemm.batch_count = static_cast<int>(call.batch_count);
  return gemm;
}

absl::StatusOr<std::unique_ptr<GpuBlasLt>> GpuBlasLt::Create(
    GpuExecutor* executor, const GpuBlasApi& blas_api,
    size_t max_workspace_bytes) {
  if (blas_api.lt_create == nullptr) return nullptr;
  GpuBlasLtHandle handle = nullptr;
  int error = blas_api.lt_create(&handle);
  if (error != 0) {
    return absl::InternalError(absl::StrCat(
        blas_api.display_name, " matmul handle creation failed: ",
        blas_api.error_string(error), " (", error, ")"));
  }
  return std::unique_ptr<GpuBlasLt>(
      new GpuBlasLt(executor, blas_api, handle, max_workspace_bytes));
}

GpuBlasLt::~GpuBlasLt() {
  absl::MutexLock lock(&mu_);
  for (auto& [key, choice] : choices_) {
    if (choice->plan == nullptr) continue;
    absl::Status status = LibraryStatus(
        blas_api_.lt_plan_destroy(choice->plan), "matmul plan destroy");
    if (!status.ok()) LOG(ERROR) << status;
  }
  absl::Status status =
      LibraryStatus(blas_api_.lt_destroy(handle_), "matmul handle destroy");
  if (!status.ok()) LOG(ERROR) << status;
}

absl::Status GpuBlasLt::LibraryStatus(int error, const char* operation) const {
  if (error == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(blas_api_.display_name, " ",
                                          operation, " failed: ",
                                          blas_api_.error_string(error), " (",
                                          error, ")"));
}

bool GpuBlasLt::IsAligned(const blas::GemmCall& call) {
  return IsAlignedAddress(call.a) && IsAlignedAddress(call.b) &&
         IsAlignedAddress(call.c) && IsAlignedStride(call.stride_a, call.type) &&
         IsAlignedStride(call.stride_b, call.type) &&
         IsAlignedStride(call.stride_c, call.CType());
}

GpuBlasLt::Key GpuBlasLt::KeyOf(const blas::GemmCall& call, bool allow_tf32) {
  return Key(call.transa == blas::Transpose::kTranspose,
             call.transb == blas::Transpose::kTranspose, call.m, call.n,
             call.k, static_cast<int>(call.type),
             static_cast<int>(call.CType()), call.lda, call.ldb, call.ldc,
             call.batch_count, call.stride_a, call.stride_b, call.stride_c,
             allow_tf32 && call.type == blas::DataType::kF32);
}

absl::StatusOr<std::optional<GpuBlasLt::Choice>> GpuBlasLt::Choose(
    const blas::GemmCall& call, bool allow_tf32, GpuStream* stream,
    int candidates, ClassicGemm classic) {
  bool time = candidates > 1 && !stream->IsCapturing();
  absl::MutexLock lock(&mu_);
  std::unique_ptr<Choice>& choice = choices_[KeyOf(call, allow_tf32)];
  if (choice == nullptr) {
    choice = std::make_unique<Choice>();
    absl::Status status =
        LibraryStatus(blas_api_.lt_plan_create(ShapeOf(call, allow_tf32),
                                               &choice->plan),
                      "matmul plan creation");
    if (!status.ok()) {
      // Remembered as unusable: the classic path serves the shape.
      LOG(WARNING) << status << " for " << call.ToString();
      choice->plan = nullptr;
      return std::nullopt;
    }
    RETURN_IF_ERROR(ChooseAlgorithm(call, stream, 1, classic, *choice));
  }
  if (choice->usable && choice->timed == 0 && time) {
    RETURN_IF_ERROR(
        ChooseAlgorithm(call, stream, candidates, classic, *choice));
  }
  if (!choice->usable) return std::nullopt;
  return *choice;
}

absl::Status GpuBlasLt::ChooseAlgorithm(const blas::GemmCall& call,
                                        GpuStream* stream, int candidates,
                                        ClassicGemm classic, Choice& choice) {
  std::vector<GpuBlasLtAlgorithm> algorithms(candidates);
  int count = 0;
  absl::Status status = LibraryStatus(
      blas_api_.lt_algorithms(handle_, choice.plan, max_workspace_bytes_,
                              candidates, algorithms.data(), &count),
      "matmul heuristic");
  if (!status.ok() || count == 0) {
    // A choice made before stays; a shape without one takes the classic
    // path. The plan stays too: a copy of the choice may be in use.
    VLOG(1) << blas_api_.display_name << " offers no algorithm for "
            << call.ToString() << ": " << status;
    return absl::OkStatus();
  }
  algorithms.resize(count);
  int chosen = 0;
  if (candidates > 1) {
    ASSIGN_OR_RETURN(chosen, FastestOf(call, choice.plan, algorithms, stream,
                                       classic));
    if (chosen < 0) return absl::OkStatus();
  }
  choice.classic = chosen == count;
  if (!choice.classic) choice.algorithm = algorithms[chosen];
  choice.usable = true;
  choice.timed = candidates > 1 ? count + 1 : 0;
  VLOG(1) << blas_api_.display_name << " "
          << (choice.classic ? std::string("classic entry point")
                             : absl::StrCat("algorithm ", chosen))
          << " of " << count
          << (candidates > 1 ? " timed" : " by heuristic") << " for "
          << call.ToString();
  return absl::OkStatus();
}

absl::StatusOr<int> GpuBlasLt::FastestOf(
    const blas::GemmCall& call, GpuBlasLtPlan plan,
    absl::Span<const GpuBlasLtAlgorithm> algorithms, GpuStream* stream,
    ClassicGemm classic) {
  bool ta = call.transa == blas::Transpose::kTranspose;
  bool tb = call.transb == blas::Transpose::kTranspose;
  size_t workspace_bytes = 0;
  for (const GpuBlasLtAlgorithm& algorithm : algorithms) {
    workspace_bytes = std::max(workspace_bytes, algorithm.workspace_bytes);
  }
  ScratchBuffers scratch(executor_);
  GpuBlasGemm gemm = ToGpuBlasGemm(call);
  ASSIGN_OR_RETURN(gemm.a, scratch.Allocate(
                               ExtentBytes(ta ? call.k : call.m,
                                           ta ? call.m : call.k, call.lda,
                                           call.batch_count, call.stride_a,
                                           call.type),
                               stream));
  ASSIGN_OR_RETURN(gemm.b, scratch.Allocate(
                               ExtentBytes(tb ? call.n : call.k,
                                           tb ? call.k : call.n, call.ldb,
                                           call.batch_count, call.stride_b,
                                           call.type),
                               stream));
  ASSIGN_OR_RETURN(gemm.c, scratch.Allocate(
                               ExtentBytes(call.m, call.n, call.ldc,
                                           call.batch_count, call.stride_c,
                                           call.CType()),
                               stream));
  ASSIGN_OR_RETURN(void* workspace, scratch.Allocate(workspace_bytes, stream));
  RETURN_IF_ERROR(stream->BlockHostUntilDone());

  // Candidate i < size() is algorithms[i]; size() is the classic path.
  auto run = [&](size_t i) {
    if (i == algorithms.size()) return classic(stream, gemm);
    return LibraryStatus(
        blas_api_.lt_matmul(handle_, plan, gemm, algorithms[i], workspace,
                            workspace_bytes, stream->handle()),
        "matmul");
  };
  int fastest = -1;
  absl::Duration best = absl::InfiniteDuration();
  for (size_t i = 0; i <= algorithms.size(); ++i) {
    // A candidate the library offers but cannot run is skipped.
    if (absl::Status status = run(i); !status.ok()) {
      VLOG(1) << "autotuning skips candidate " << i << ": " << status;
      continue;
    }
    RETURN_IF_ERROR(stream->BlockHostUntilDone());
    absl::Time start = absl::Now();
    for (int r = 0; r < kTimedRuns; ++r) RETURN_IF_ERROR(run(i));
    RETURN_IF_ERROR(stream->BlockHostUntilDone());
    absl::Duration elapsed = (absl::Now() - start) / kTimedRuns;
    VLOG(2) << "candidate " << i << ": " << elapsed;
    if (elapsed < best) {
      best = elapsed;
      fastest = static_cast<int>(i);
    }
  }
  return fastest;
}

absl::Status GpuBlasLt::Run(const Choice& choice, const GpuBlasGemm& gemm,
                            GpuStream* stream, void* workspace,
                            size_t workspace_bytes) {
  return LibraryStatus(
      blas_api_.lt_matmul(handle_, choice.plan, gemm, choice.algorithm,
                          workspace, workspace_bytes, stream->handle()),
      "matmul");
}

std::pair<int, int> GpuBlasLt::CountChoices() const {
  absl::MutexLock lock(&mu_);
  int made = 0, timed = 0;
  for (const auto& [key, choice] : choices_) {
    if (!choice->usable) continue;
    ++made;
    if (choice->timed > 0) ++timed;
  }
  return {made, timed};
}

}  // namespace stream_executor::gpu
