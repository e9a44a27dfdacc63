#ifndef STREAM_EXECUTOR_HOST_HOST_BLAS_H_
#define STREAM_EXECUTOR_HOST_HOST_BLAS_H_

#include "stream_executor/blas.h"

namespace stream_executor::host {

// Gemm with Eigen, run on the stream's worker thread.
class HostBlas : public blas::BlasSupport {
 public:
  absl::Status Gemm(Stream* stream, const blas::GemmCall& call) override;

  // The same product computed on the calling thread (what the enqueued
  // operation runs). Public for reuse by host kernels of emitted gemms.
  static void RunGemm(const blas::GemmCall& call);
};

}  // namespace stream_executor::host

#endif  // STREAM_EXECUTOR_HOST_HOST_BLAS_H_
