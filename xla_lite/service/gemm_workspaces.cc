#include "xla_lite/service/gemm_workspaces.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

void AddGemmWorkspaces(ExecutionPlan& plan, const OpGraph::Edges& edges,
                       const GemmEmission& emission) {
  const int64_t bytes = emission.library_workspace_bytes;
  if (bytes == 0) return;
  std::vector<int> gemms;
  for (int i = 0; i < plan.ops.size(); ++i) {
    if (IsLibraryGemm(plan.ops[i], emission) &&
        plan.ops[i].gemm.output_shape.ByteSize() > 0) {
      gemms.push_back(i);
    }
  }
  std::vector<int> last;  // Per workspace: the last gemm given it.
  std::vector<int> workspace_of(gemms.size());
  {
    OpGraph graph(plan.ops, edges);
    for (int g = 0; g < gemms.size(); ++g) {
      int w = 0;
      while (w < last.size() && !graph.Reaches(last[w], gemms[g])) ++w;
      if (w == last.size() && last.size() >= kMaxGemmWorkspaces) {
        w = std::min_element(last.begin(), last.end()) - last.begin();
      }
      if (w == last.size()) last.push_back(-1);
      last[w] = gemms[g];
      workspace_of[g] = w;
    }
  }
  const int first = plan.buffers.size();
  for (int w = 0; w < last.size(); ++w) {
    LogicalBuffer buffer;
    buffer.id = plan.buffers.size();
    buffer.name = absl::StrCat(plan.name, ".gemm_workspace.", w);
    buffer.size = bytes;
    buffer.placement = LogicalBuffer::Placement::kWorkspace;
    plan.buffers.push_back(std::move(buffer));
  }
  for (int g = 0; g < gemms.size(); ++g) {
    plan.ops[gemms[g]].writes.push_back(first + workspace_of[g]);
  }
  VLOG(1) << plan.name << ": " << gemms.size() << " library gemms on "
          << last.size() << " workspaces";
}

}  // namespace xla_lite::gpu
