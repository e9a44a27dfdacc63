#ifndef XLA_LITE_SERVICE_ROW_REGISTERS_H_
#define XLA_LITE_SERVICE_ROW_REGISTERS_H_

// Values a row kernel's stages hand on in registers instead of memory.
//
// A row kernel (EmitCudaRowKernel) runs its stages one after another over
// one row, and every stage gives lane x of the row's group the same
// elements: x, x + lanes, x + 2 * lanes, ... So when a stage reads an
// element that an earlier stage of the same kernel loaded or stored, the
// thread already holds it, trip by trip; and a per-row result that an
// earlier reduction stored is in shared memory, one slot per row of the
// block. Read from memory, each such value waited out a round trip to L2
// after a __syncthreads(): a softmax (max, exp, sum, divide) made four of
// them a row. Stores still happen, since other kernels read the results.
//
// A register holds the element as the store wrote it (the storage type:
// bf16 as its bits), and a forwarded read converts it as a load would, so
// forwarding changes no value. A stage that writes a buffer in another
// shape (a reduction's per-row result over a buffer that held elements)
// ends what was kept for it.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu::cuda_internal {

// The trips of a thread's strided share of [0, end), step apart, when
// AppendStridedLoop unrolls them (a trip counter the registers can be
// indexed by): end / step when step divides end and that is 1 to 8, else
// 0. One trip needs no counter.
inline constexpr int64_t kMaxUnrolledTrips = 8;
int64_t UnrolledTrips(int64_t end, int64_t step);

// How index op `id` of a row stage's program addresses the kernel's row,
// for rows of `row_length` elements (a reduce stage's reduced elements, a
// loop stage's row length).
enum class RowAccess {
  kOther,
  // Loop stages: the element the stage computes (i = row * row_length + j).
  // Reduce stages: the row's element being folded (row * row_length + r).
  kElement,
  // The row itself: row, for a buffer of one value per row.
  kRow,
};
RowAccess ClassifyRowAccess(const KernelProgram& program, int id,
                            int64_t row_length);

// What one stage's ProgramEmitter does beyond the plain loads and stores.
// Keys are the stage program's op ids (loads) and output numbers; values
// are C lvalues of the parameter's storage type.
struct StageRegisters {
  // Loads read from here instead of memory.
  absl::flat_hash_map<int, std::string> loads;
  // Loads also kept here for later stages.
  absl::flat_hash_map<int, std::string> kept_loads;
  // Outputs also kept here (as stored) for later stages.
  absl::flat_hash_map<int, std::string> kept_outputs;
};

struct RowRegisterPlan {
  std::vector<StageRegisters> stages;  // One per stage.
  // Per-thread arrays, declared in the row loop before the stages.
  std::string element_declarations;
  // Per-row slots, declared at the kernel's start.
  std::string row_declarations;
};

// The plan for `stages` run by groups of `lanes` threads, `rows_per_block`
// rows to a block. Nothing is forwarded with one lane a row, or for a stage
// whose share of a row is not an unrolled run of trips (AppendStridedLoop).
RowRegisterPlan PlanRowRegisters(const std::vector<RowKernelStage>& stages,
                                 int lanes, int rows_per_block);

}  // namespace xla_lite::gpu::cuda_internal

#endif  // XLA_LITE_SERVICE_ROW_REGISTERS_H_
