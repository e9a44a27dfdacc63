#ifndef STREAM_EXECUTOR_GPU_GPU_CAPTURED_GRAPH_H_
#define STREAM_EXECUTOR_GPU_GPU_CAPTURED_GRAPH_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "stream_executor/gpu/gpu_api.h"
#include "stream_executor/stream.h"

namespace stream_executor::gpu {

// The graph (cudaGraph_t, hipGraph_t) a stream capture produced; destroyed
// with this object. Command buffers add it as a child node, which copies it,
// so it need not outlive them.
class GpuCapturedGraph : public CapturedGraph {
 public:
  // Takes ownership of `graph` and counts its nodes now, so that num_nodes()
  // cannot fail later.
  static absl::StatusOr<std::unique_ptr<GpuCapturedGraph>> Create(
      const GpuApi& api, GpuGraphHandle graph);
  ~GpuCapturedGraph() override;

  int64_t num_nodes() const override { return num_nodes_; }
  GpuGraphHandle graph() const { return graph_; }

 private:
  GpuCapturedGraph(const GpuApi& api, GpuGraphHandle graph, int64_t num_nodes)
      : api_(api), graph_(graph), num_nodes_(num_nodes) {}

  const GpuApi& api_;
  GpuGraphHandle graph_;
  int64_t num_nodes_;
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_CAPTURED_GRAPH_H_
