#include "stream_executor/gpu/gpu_captured_graph.h"

#include "glog/logging.h"
#include "stream_executor/gpu/gpu_status.h"

namespace stream_executor::gpu {

absl::StatusOr<std::unique_ptr<GpuCapturedGraph>> GpuCapturedGraph::Create(
    const GpuApi& api, GpuGraphHandle graph) {
  size_t count = 0;
  GpuError error = api.graph_num_nodes(graph, &count);
  if (error != kGpuSuccess) {
    api.graph_destroy(graph);
    return ToStatus(api, error, "graph node count");
  }
  return std::unique_ptr<GpuCapturedGraph>(
      new GpuCapturedGraph(api, graph, static_cast<int64_t>(count)));
}

GpuCapturedGraph::~GpuCapturedGraph() {
  absl::Status status =
      ToStatus(api_, api_.graph_destroy(graph_), "graph destroy");
  if (!status.ok()) LOG(ERROR) << status;
}

}  // namespace stream_executor::gpu
