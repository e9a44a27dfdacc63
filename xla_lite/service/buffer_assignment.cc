#include "xla_lite/service/buffer_assignment.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/array_size.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "xla_lite/service/plan_ordering.h"

namespace xla_lite::gpu {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool LiveTogether(const TempValue& a, const TempValue& b) {
  return a.start <= b.end && b.start <= a.end;
}

// Whether `earlier`'s bytes can hold `later` without its writer waiting
// for an op the ordering did not already make it wait for.
bool FreeBefore(const TempValue& earlier, const TempValue& later,
                const PlanOrdering& ordering) {
  if (earlier.accesses.empty()) {
    return ordering.ExecutesBefore(earlier.start, later.start) &&
           ordering.ExecutesBefore(earlier.end, later.start);
  }
  for (int64_t op : earlier.accesses) {
    if (!ordering.ExecutesBefore(op, later.start)) return false;
  }
  return true;
}

bool CanShare(const TempValue& a, const TempValue& b,
              const PlanOrdering* ordering) {
  if (LiveTogether(a, b)) return false;
  const TempValue& earlier = a.end < b.start ? a : b;
  const TempValue& later = a.end < b.start ? b : a;
  if (ordering == nullptr || !ordering->Protected(later.start)) return true;
  return FreeBefore(earlier, later, *ordering);
}

// Packings after the first, each with the ops the one before delayed on
// the longest path protected.
constexpr int kMaxPackingRounds = 8;

// The edges sharing bytes adds to a command buffer: the later value's
// writer waits for each user of the earlier value that it does not
// already follow.
std::vector<std::pair<int64_t, int64_t>> SharingEdges(
    absl::Span<const TempValue> values, const TempPacking& packing,
    const PlanOrdering& ordering) {
  std::vector<std::pair<int64_t, int64_t>> edges;
  for (int i = 0; i < values.size(); ++i) {
    for (int j = 0; j < values.size(); ++j) {
      const TempValue& earlier = values[i];
      const TempValue& later = values[j];
      if (earlier.size == 0 || later.size == 0 || earlier.end >= later.start ||
          packing.offsets[i] >= packing.offsets[j] + later.size ||
          packing.offsets[j] >= packing.offsets[i] + earlier.size) {
        continue;
      }
      for (int64_t op : earlier.accesses) {
        if (!ordering.ExecutesBefore(op, later.start)) {
          edges.push_back({op, later.start});
        }
      }
    }
  }
  return edges;
}

// Live range of each temp buffer over the plan's op positions, and the
// ops that access it.
std::vector<TempValue> LiveRanges(const ExecutionPlan& plan,
                                  const std::vector<int>& temps) {
  std::vector<int64_t> start(plan.buffers.size(), -1), end(plan.buffers.size(), -1);
  std::vector<std::vector<int64_t>> accesses(plan.buffers.size());
  auto access = [&](int b, int64_t position) {
    if (accesses[b].empty() || accesses[b].back() != position) {
      accesses[b].push_back(position);
    }
  };
  for (int64_t position = 0; position < plan.ops.size(); ++position) {
    const PlannedOp& op = plan.ops[position];
    for (int b : op.writes) {
      if (start[b] < 0) start[b] = position;
      end[b] = std::max(end[b], position);
      access(b, position);
    }
    for (int b : op.reads) {
      end[b] = std::max(end[b], position);
      access(b, position);
    }
  }
  std::vector<TempValue> values;
  for (int b : temps) {
    int64_t s = std::max<int64_t>(start[b], 0);
    values.push_back(
        {plan.buffers[b].size, s, std::max(end[b], s), std::move(accesses[b])});
  }
  return values;
}

}  // namespace

TempPacking PackTemps(absl::Span<const TempValue> values,
                      const PlanOrdering* ordering, int64_t alignment) {
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
      if (values[p].size > 0 && !CanShare(value, values[p], ordering)) {
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

namespace {

using Slice = BufferAllocation::Slice;

// Where a plan's parameters and results go. The entry's parameters are
// allocations 0..P-1 and its results get allocations of their own
// (`outputs` empty); a nested computation's are its caller's slices.
struct Bindings {
  std::vector<Slice> parameters;
  std::vector<Slice> outputs;
  bool entry = false;
};

// Temps a loop's state can take over: the initial value's slot, when the
// value is a temp only the while reads (once).
std::vector<std::pair<int, int>> StateSharingInitialValue(
    const ExecutionPlan& plan, const std::vector<bool>& is_temp) {
  std::vector<int> readers(plan.buffers.size(), 0);
  for (const PlannedOp& op : plan.ops) {
    for (int b : op.reads) ++readers[b];
  }
  std::vector<std::pair<int, int>> shared;  // (initial value, state)
  for (const PlannedOp& op : plan.ops) {
    if (op.kind != PlannedOp::Kind::kWhile) continue;
    for (size_t i = 0; i < op.writes.size() && i < op.reads.size(); ++i) {
      const int init = op.reads[i], state = op.writes[i];
      if (init != state && is_temp[init] && is_temp[state] &&
          readers[init] == 1 &&
          plan.buffers[init].size == plan.buffers[state].size) {
        shared.push_back({init, state});
      }
    }
  }
  return shared;
}

// PackTemps with the plan's ordering, packed again while sharing still
// delays the longest path (each round protects the ops it delayed), unless
// that takes more than kMaxOrderedTempGrowth times the bytes of packing by
// live range alone: then by live range alone. Many equally long branches
// all lie on the longest path, and ordered they could share nothing.
TempPacking PackForTheLongestPath(const ExecutionPlan& plan,
                                  absl::Span<const TempValue> values) {
  PlanOrdering ordering(plan);
  if (!ordering.exact()) return PackTemps(values);
  TempPacking packing = PackTemps(values, &ordering);
  for (int round = 0; round < kMaxPackingRounds; ++round) {
    std::vector<int64_t> delayed =
        ordering.DelayedOnLongestPath(SharingEdges(values, packing, ordering));
    if (delayed.empty()) break;
    VLOG(1) << plan.name << ": " << delayed.size()
            << " ops wait on the longest path for bytes they share; packing "
               "again with them protected";
    for (int64_t op : delayed) ordering.Protect(op);
    packing = PackTemps(values, &ordering);
  }
  TempPacking by_live_range = PackTemps(values);
  VLOG(1) << plan.name << ": temps take " << packing.size
          << " bytes packed for the longest path, " << by_live_range.size
          << " by live range alone";
  if (packing.size > kMaxOrderedTempGrowth * by_live_range.size) {
    return by_live_range;
  }
  return packing;
}

absl::Status CheckTempTotal(const ExecutionPlan& plan,
                            const std::vector<int>& temps) {
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
  return absl::OkStatus();
}

// Packs the plan's temps into one new allocation.
absl::Status AssignTemps(const ExecutionPlan& plan,
                         const std::vector<int>& temps,
                         std::vector<BufferAllocation>& allocations,
                         BufferAssignment& assignment) {
  if (temps.empty()) return absl::OkStatus();
  RETURN_IF_ERROR(CheckTempTotal(plan, temps));
  std::vector<bool> is_temp(plan.buffers.size(), false);
  for (int t : temps) is_temp[t] = true;
  // state -> initial value; loops in a row chain through their states.
  std::vector<int> owner(plan.buffers.size(), -1);
  for (const auto& [init, state] : StateSharingInitialValue(plan, is_temp)) {
    owner[state] = init;
  }
  auto slot_of = [&owner](int b) {
    while (owner[b] >= 0) b = owner[b];
    return b;
  };
  std::vector<int> packed;  // Temps with a slot of their own.
  for (int t : temps) {
    if (owner[t] < 0) packed.push_back(t);
  }
  std::vector<TempValue> values = LiveRanges(plan, packed);
  std::vector<TempValue> all = LiveRanges(plan, temps);
  std::vector<int> position(plan.buffers.size(), -1);
  for (int i = 0; i < packed.size(); ++i) position[packed[i]] = i;
  for (int i = 0; i < temps.size(); ++i) {
    if (owner[temps[i]] < 0) continue;
    TempValue& shared = values[position[slot_of(temps[i])]];
    shared.end = std::max(shared.end, all[i].end);
    shared.accesses.insert(shared.accesses.end(), all[i].accesses.begin(),
                           all[i].accesses.end());
  }
  TempPacking packing = PackForTheLongestPath(plan, values);
  BufferAllocation::Index index = allocations.size();
  allocations.push_back(BufferAllocation::Temp(index, packing.size));
  for (int t : temps) {
    assignment.slices[t] = allocations[index].GetSlice(
        packing.offsets[position[slot_of(t)]], plan.buffers[t].size);
  }
  return absl::OkStatus();
}

absl::Status AssignPlan(const ExecutionPlan& plan, const Bindings& bindings,
                        std::vector<BufferAllocation>& allocations,
                        BufferAssignment& assignment);

// Gemm workspaces side by side in one temp allocation of their own.
void AssignWorkspaces(const ExecutionPlan& plan,
                      const std::vector<int>& workspaces,
                      std::vector<BufferAllocation>& allocations,
                      BufferAssignment& assignment) {
  if (workspaces.empty()) return;
  std::vector<int64_t> offsets;
  int64_t size = 0;
  for (int w : workspaces) {
    offsets.push_back(size);
    const int64_t align = BufferAllocation::kDefaultAlignment;
    size += (plan.buffers[w].size + align - 1) / align * align;
  }
  const BufferAllocation::Index index = allocations.size();
  allocations.push_back(BufferAllocation::Temp(index, size));
  for (int i = 0; i < workspaces.size(); ++i) {
    assignment.slices[workspaces[i]] = allocations[index].GetSlice(
        offsets[i], plan.buffers[workspaces[i]].size);
  }
}

// The computations of the plan's whiles and conditionals, bound to the
// slices `assignment` gave their operands and results.
absl::Status AssignNested(const ExecutionPlan& plan,
                          std::vector<BufferAllocation>& allocations,
                          BufferAssignment& assignment) {
  assignment.nested.resize(plan.ops.size());
  for (int64_t i = 0; i < plan.ops.size(); ++i) {
    const PlannedOp& op = plan.ops[i];
    if (op.control == nullptr) continue;
    auto slices_of = [&](const std::vector<int>& buffers) {
      std::vector<Slice> slices;
      for (int b : buffers) slices.push_back(assignment.slices[b]);
      return slices;
    };
    std::vector<Bindings> bindings;
    const std::vector<Slice> results = slices_of(op.writes);
    if (op.kind == PlannedOp::Kind::kWhile) {
      const ExecutionPlan& condition = op.control->computations.at(0);
      const int64_t pred_size =
          condition.buffers[condition.output_buffers.at(0)].size;
      BufferAllocation::Index pred = allocations.size();
      allocations.push_back(BufferAllocation::Temp(pred, pred_size));
      bindings.push_back({results, {allocations[pred].GetSlice()}});
      bindings.push_back({results, results});
    } else {
      for (const std::vector<int>& operand : op.control->branch_operands) {
        bindings.push_back({slices_of(operand), results});
      }
    }
    for (int64_t c = 0; c < bindings.size(); ++c) {
      BufferAssignment nested;
      RETURN_IF_ERROR(AssignPlan(op.control->computations[c], bindings[c],
                                 allocations, nested));
      assignment.nested[i].push_back(std::move(nested));
    }
  }
  return absl::OkStatus();
}

absl::Status AssignPlan(const ExecutionPlan& plan, const Bindings& bindings,
                        std::vector<BufferAllocation>& allocations,
                        BufferAssignment& assignment) {
  using Placement = LogicalBuffer::Placement;
  assignment.slices.assign(plan.buffers.size(), Slice());
  std::vector<int> temps, workspaces;
  std::vector<bool> touched(plan.buffers.size(), false);
  for (const PlannedOp& op : plan.ops) {
    for (int b : op.reads) touched[b] = true;
    for (int b : op.writes) touched[b] = true;
  }
  for (const LogicalBuffer& buffer : plan.buffers) {
    Slice& slice = assignment.slices[buffer.id];
    switch (buffer.placement) {
      case Placement::kParameter:
        if (buffer.number < 0 || buffer.number >= bindings.parameters.size() ||
            bindings.parameters[buffer.number].size() != buffer.size) {
          return absl::InternalError(absl::StrCat(
              plan.name, ": ", buffer.ToString(),
              " does not fit its parameter's slice"));
        }
        slice = bindings.parameters[buffer.number];
        break;
      case Placement::kConstant: {
        const std::vector<uint8_t>& bytes =
            buffer.instruction->literal().bytes();
        if (bytes.size() != buffer.size) {
          return absl::InternalError(absl::StrCat(
              buffer.ToString(), ": its literal has ", bytes.size(), " bytes"));
        }
        allocations.push_back(
            BufferAllocation::Constant(allocations.size(), bytes));
        slice = allocations.back().GetSlice(0, buffer.size);
        break;
      }
      case Placement::kOutput:
        if (bindings.entry) {
          allocations.push_back(
              BufferAllocation::Output(allocations.size(), buffer.size));
          slice = allocations.back().GetSlice(0, buffer.size);
        } else if (buffer.number >= 0 &&
                   buffer.number < bindings.outputs.size() &&
                   bindings.outputs[buffer.number].size() == buffer.size) {
          slice = bindings.outputs[buffer.number];
        } else {
          return absl::InternalError(absl::StrCat(
              plan.name, ": ", buffer.ToString(),
              " does not fit its result's slice"));
        }
        break;
      case Placement::kTemp:
        // A value fused away (a reduction computed in a kernel's
        // registers) is never touched and needs no space.
        if (touched[buffer.id]) temps.push_back(buffer.id);
        break;
      case Placement::kWorkspace:
        workspaces.push_back(buffer.id);
        break;
    }
  }
  RETURN_IF_ERROR(AssignTemps(plan, temps, allocations, assignment));
  AssignWorkspaces(plan, workspaces, allocations, assignment);
  return AssignNested(plan, allocations, assignment);
}

}  // namespace

absl::StatusOr<BufferAssignment> AssignBuffers(
    const ExecutionPlan& plan, absl::Span<const int64_t> parameter_sizes) {
  BufferAssignment assignment;
  Bindings bindings;
  bindings.entry = true;
  for (int64_t p = 0; p < parameter_sizes.size(); ++p) {
    assignment.allocations.push_back(
        BufferAllocation::Parameter(p, parameter_sizes[p], p));
    bindings.parameters.push_back(assignment.allocations.back().GetSlice());
  }
  RETURN_IF_ERROR(
      AssignPlan(plan, bindings, assignment.allocations, assignment));
  for (int b : plan.output_buffers) {
    assignment.output_allocations.push_back(assignment.slices[b].index());
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
