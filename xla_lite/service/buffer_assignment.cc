#include "xla_lite/service/buffer_assignment.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/array_size.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool LiveTogether(const TempValue& a, const TempValue& b) {
  return a.start <= b.end && b.start <= a.end;
}

// Live range of each temp buffer over the plan's op positions.
std::vector<TempValue> LiveRanges(const ExecutionPlan& plan,
                                  const std::vector<int>& temps) {
  std::vector<int64_t> start(plan.buffers.size(), -1), end(plan.buffers.size(), -1);
  for (int64_t position = 0; position < plan.ops.size(); ++position) {
    const PlannedOp& op = plan.ops[position];
    for (int b : op.writes) {
      if (start[b] < 0) start[b] = position;
      end[b] = std::max(end[b], position);
    }
    for (int b : op.reads) end[b] = std::max(end[b], position);
  }
  std::vector<TempValue> values;
  for (int b : temps) {
    int64_t s = std::max<int64_t>(start[b], 0);
    values.push_back({plan.buffers[b].size, s, std::max(end[b], s)});
  }
  return values;
}

}  // namespace

TempPacking PackTemps(absl::Span<const TempValue> values, int64_t alignment) {
  std::vector<int> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return values[a].size > values[b].size;
  });
  TempPacking packing;
  packing.offsets.assign(values.size(), 0);
  std::vector<int> placed;
  for (int v : order) {
    const TempValue& value = values[v];
    // Byte ranges of already placed values that are live at the same time.
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (int p : placed) {
      if (values[p].size > 0 && LiveTogether(value, values[p])) {
        taken.push_back({packing.offsets[p], packing.offsets[p] + values[p].size});
      }
    }
    std::sort(taken.begin(), taken.end());
    int64_t best = -1, best_gap = 0, cursor = 0;
    for (const auto& [begin, end] : taken) {
      int64_t gap = begin - cursor;
      if (gap >= value.size && (best < 0 || gap < best_gap)) {
        best = cursor;
        best_gap = gap;
      }
      cursor = std::max(cursor, AlignUp(end, alignment));
    }
    packing.offsets[v] = best >= 0 ? best : cursor;
    packing.size = std::max(packing.size, packing.offsets[v] + value.size);
    placed.push_back(v);
  }
  packing.size = AlignUp(packing.size, alignment);
  return packing;
}

absl::StatusOr<BufferAssignment> AssignBuffers(
    const ExecutionPlan& plan, absl::Span<const int64_t> parameter_sizes) {
  using Placement = LogicalBuffer::Placement;
  BufferAssignment assignment;
  std::vector<BufferAllocation>& allocations = assignment.allocations;
  for (int64_t p = 0; p < parameter_sizes.size(); ++p) {
    allocations.push_back(BufferAllocation::Parameter(p, parameter_sizes[p], p));
  }
  assignment.output_allocations.assign(plan.output_buffers.size(), -1);
  std::vector<BufferAllocation::Index> allocation_of(plan.buffers.size(), -1);
  std::vector<int> temps;
  std::vector<bool> touched(plan.buffers.size(), false);
  for (const PlannedOp& op : plan.ops) {
    for (int b : op.reads) touched[b] = true;
    for (int b : op.writes) touched[b] = true;
  }
  for (const LogicalBuffer& buffer : plan.buffers) {
    switch (buffer.placement) {
      case Placement::kParameter:
        if (buffer.number < 0 || buffer.number >= parameter_sizes.size() ||
            parameter_sizes[buffer.number] != buffer.size) {
          return absl::InternalError(absl::StrCat(
              buffer.ToString(), " does not fit its parameter allocation"));
        }
        allocation_of[buffer.id] = buffer.number;
        break;
      case Placement::kConstant: {
        const std::vector<uint8_t>& bytes =
            buffer.instruction->literal().bytes();
        if (bytes.size() != buffer.size) {
          return absl::InternalError(absl::StrCat(
              buffer.ToString(), ": its literal has ", bytes.size(), " bytes"));
        }
        allocation_of[buffer.id] = allocations.size();
        allocations.push_back(
            BufferAllocation::Constant(allocations.size(), bytes));
        break;
      }
      case Placement::kOutput:
        allocation_of[buffer.id] = allocations.size();
        allocations.push_back(
            BufferAllocation::Output(allocations.size(), buffer.size));
        break;
      case Placement::kTemp:
        // A value fused away (a reduction computed in a kernel's
        // registers) is never touched and needs no space.
        if (touched[buffer.id]) temps.push_back(buffer.id);
        break;
    }
  }
  assignment.slices.resize(plan.buffers.size());
  for (const LogicalBuffer& buffer : plan.buffers) {
    if (allocation_of[buffer.id] < 0) continue;
    assignment.slices[buffer.id] =
        allocations[allocation_of[buffer.id]].GetSlice(0, buffer.size);
  }
  if (!temps.empty()) {
    // Each buffer is at most base::kMaxArrayBytes (the parser checked its
    // shape), but many together could wrap the packed size.
    int64_t total = 0;
    for (int t : temps) {
      std::optional<int64_t> sum = base::CheckedAdd(
          total, plan.buffers[t].size + BufferAllocation::kDefaultAlignment);
      if (!sum.has_value() || *sum > base::kMaxArrayBytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the program's temporary buffers need more than ",
            base::kMaxArrayBytes, " bytes"));
      }
      total = *sum;
    }
    TempPacking packing = PackTemps(LiveRanges(plan, temps));
    BufferAllocation::Index index = allocations.size();
    allocations.push_back(BufferAllocation::Temp(index, packing.size));
    for (int t = 0; t < temps.size(); ++t) {
      assignment.slices[temps[t]] = allocations[index].GetSlice(
          packing.offsets[t], plan.buffers[temps[t]].size);
    }
  }
  for (int64_t i = 0; i < plan.output_buffers.size(); ++i) {
    assignment.output_allocations[i] =
        allocation_of[plan.output_buffers[i]];
  }
  return assignment;
}

std::string BufferAssignment::ToString(const ExecutionPlan& plan) const {
  std::string text;
  for (const BufferAllocation& allocation : allocations) {
    absl::StrAppend(&text, allocation.ToString(), "\n");
    for (const LogicalBuffer& buffer : plan.buffers) {
      const BufferAllocation::Slice& slice = slices[buffer.id];
      if (slice.valid() && slice.index() == allocation.index()) {
        absl::StrAppend(&text, "  ", slice.ToString(), " ", buffer.name, "\n");
      }
    }
  }
  return text;
}

}  // namespace xla_lite::gpu
