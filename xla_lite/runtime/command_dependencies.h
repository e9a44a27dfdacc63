#ifndef XLA_LITE_RUNTIME_COMMAND_DEPENDENCIES_H_
#define XLA_LITE_RUNTIME_COMMAND_DEPENDENCIES_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "xla_lite/runtime/buffer_allocation.h"
#include "xla_lite/runtime/thunk.h"

namespace xla_lite::gpu {

// The edges of a command buffer recorded from a thunk sequence. A graph runs
// independent commands in any order, or at once, so each command must wait
// for every earlier command it conflicts with on some byte: the last writer
// of what it reads or writes (read after write, write after write) and,
// when it writes, the readers since that write (write after read). Two
// reads never conflict.
//
// Commands are named by their position in the sequence. Some edges that
// another path implies are left out as they are found: once a write covers
// a slice, earlier accesses inside it are forgotten, since anything that
// conflicts with them conflicts with the write, which waits for them.
// DropImpliedDependencies removes the rest.
class CommandDependencies {
 public:
  // The earlier commands a command with `uses` must wait for, ascending and
  // each once.
  std::vector<int64_t> DependenciesOf(const BufferUses& uses) const;

  // Notes that command `id`, later than every command added so far,
  // accesses `uses`.
  void Add(int64_t id, const BufferUses& uses);

 private:
  struct Access {
    BufferAllocation::Slice slice;
    BufferUse::Access access;
    int64_t command;
  };

  // Accesses no later write has covered yet, by allocation: only accesses
  // of one allocation can overlap, and a sequence of 50,000 thunks on as
  // many allocations must not compare every pair.
  absl::flat_hash_map<BufferAllocation::Index, std::vector<Access>> live_;
  int64_t last_command_ = -1;
};

// Drops from `dependencies` (per command, the earlier commands it waits
// for, ascending) every edge that a path through other edges implies,
// leaving the transitive reduction of the graph: the same order with
// fewer edges. A graph pays for every edge when it runs, with
// programmatic launch on or off: the medium bf16 transformer's step went
// from 1,018 to 861 us on an H200 with this alone (docs/benchmarks.md).
// Sequences of more than kMaxReducedCommands commands keep their edges
// (the closure takes a bit per pair of commands). Returns how many edges
// it dropped.
inline constexpr int64_t kMaxReducedCommands = 8192;
int64_t DropImpliedDependencies(
    std::vector<std::vector<int64_t>>& dependencies);

// The longest chain through commands taking `micros` each, where command
// i starts once `dependencies[i]` (earlier commands) are done.
struct LongestPath {
  double micros = 0;
  std::vector<int64_t> commands;  // First to last; empty for no commands.
};
LongestPath FindLongestPath(
    absl::Span<const double> micros,
    absl::Span<const std::vector<int64_t>> dependencies);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_COMMAND_DEPENDENCIES_H_
