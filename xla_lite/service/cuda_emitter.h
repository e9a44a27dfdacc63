#ifndef XLA_LITE_SERVICE_CUDA_EMITTER_H_
#define XLA_LITE_SERVICE_CUDA_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "stream_executor/device_address.h"  // The se alias.
#include "stream_executor/launch_dim.h"
#include "xla_lite/service/gemm/gemm_kernel_source.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

// How a reduce kernel spreads its work: one thread per output with a plain
// loop when the reduced extent is small, else a block's threads share each
// output. Up to kMaxGroupedExtent reduced elements (softmax and LayerNorm
// rows), a block of 256 threads takes row_groups outputs, 256 / row_groups
// threads each, as many per block as still leaves kMinGroupedBlocks
// blocks; otherwise a block per output, with a shared-memory tree. When
// consecutive outputs read consecutive elements (a reduction over outer
// dimensions: bias and LayerNorm gradients), column_lanes consecutive
// outputs per block, each folded by column_rows threads, so every warp's
// loads are coalesced: kColumnLanes by kColumnRows, or a block of
// kWideColumnThreads from kWideColumnMinExtent reduced elements on, where
// a block reads a strip of many rows (the reductions SplitColumnReductions
// leaves whole). A wide strip narrows, down to kMinColumnLanes outputs,
// while there are fewer than kMinColumnBlocks strips: a few hundred
// outputs would otherwise keep a few multiprocessors busy and the rest
// idle, and a warp's row segment of 8 four-byte elements still fills
// whole 32-byte sectors.
struct ReductionStrategy {
  static constexpr int kColumnLanes = 32;
  static constexpr int kColumnRows = 8;
  static constexpr int kWideColumnThreads = 1024;
  static constexpr int64_t kWideColumnMinExtent = 1024;
  static constexpr int kMinColumnLanes = 8;
  static constexpr int64_t kMinColumnBlocks = 128;
  static constexpr int kMaxRowGroups = 8;
  static constexpr int64_t kMaxGroupedExtent = 1024;
  static constexpr int64_t kMinGroupedBlocks = 1024;

  bool block_per_output = false;
  // With block_per_output: outputs per block (1, 2, 4 or 8).
  int row_groups = 1;
  bool column = false;
  // With column: outputs per block, and threads folding each output.
  int column_lanes = kColumnLanes;
  int column_rows = kColumnRows;
  int threads_per_block = 256;
};
ReductionStrategy ChooseReductionStrategy(const KernelProgram& program);
// Outputs per block of grouped rows (8, 4, 2 or 1) for `rows` outputs: as
// many as still leave kMinGroupedBlocks blocks.
int RowGroupsPerBlock(int64_t rows);

// How a loop kernel's threads cover its elements.
//
// One group of outputs (KernelProgram::OutputGroups) with no op to compute
// once for all elements, or one whose extent allows unrolling: one run of
// thread indices over the elements, `unroll` a thread per pass. 4
// (strided by the block, so every warp's accesses stay coalesced) where
// the extent is a multiple of 4 blocks and large enough to fill the device
// at 4 a thread, else 1. A thread's 4 elements are independent: their
// loads issue together, and each thread keeps 4 times the bytes in flight
// that one element a thread does.
//
// Otherwise group g takes group_blocks[g] blocks of its own, after those
// of the groups before it: a block's threads never ask which group an
// element is in, and compute the group's invariant ops (ElementOps) once.
// Where there are such ops, the blocks are about as many as fill the
// device once, each thread taking several elements, the group's threads
// apart; else enough for an element a thread. The medium transformer's
// Adam update (159 outputs in 53 groups, 3.45M elements, two powers and
// two quotients of the step count an element) numbered as one run of
// threads issued 22.2M warp instructions in 33.3 us on an H200; laid out
// this way, 6.8M in 28.4 us. Half the blocks (more elements a thread) was
// slower, twice as many no faster, and unrolling a thread's elements took
// the kernel past 32 registers, so fewer blocks fit. A device-full is
// 2048 threads on each of `multiprocessors` (the device's core_count:
// KernelEmission::multiprocessors).
struct LoopLayout {
  int unroll = 1;
  std::vector<int64_t> group_blocks;  // Empty: the single run.
};
// An H100's or H200's multiprocessors: the layout of kernels compiled for
// no device in particular (the host platform's CUDA C, tests).
inline constexpr int64_t kDefaultMultiprocessors = 132;
LoopLayout ChooseLoopLayout(const KernelProgram& program,
                            int64_t multiprocessors = kDefaultMultiprocessors);

// The launch the emitted kernel expects. A kernel over one run of elements
// loops over whatever the grid does not cover, so any grid is correct
// there; a kernel laid out by group (LoopLayout::group_blocks) needs
// exactly their sum: fewer blocks skip groups, more repeat the last one's
// elements.
se::LaunchDimensions KernelLaunchDimensions(
    const KernelProgram& program,
    int64_t multiprocessors = kDefaultMultiprocessors);

// Portable CUDA C (NVRTC and hiprtc both compile it: no inline PTX, no
// intrinsics with reduced precision) for `program`, as
// extern "C" __global__ void <name>(parameters...). Sizes and constants
// are baked in.
std::string EmitCudaKernel(const KernelProgram& program,
                           const KernelParameters& parameters,
                           const std::string& name,
                           int64_t multiprocessors = kDefaultMultiprocessors);

// A row kernel's stage for the emitters: `parameters` map the stage's
// program onto the kernel's parameters, which all stages share (types and
// written are the kernel's).
struct RowKernelStage {
  std::shared_ptr<const KernelProgram> program;
  KernelParameters parameters;
  int64_t row_length = 1;  // Loop stages: elements per row.
};

// Rows up to kMaxThreadRowLength elements (reduced or computed) take a
// thread each when there are at least kMinThreadRows of them; other rows
// up to kMaxRowLength take a group of threads each.
inline constexpr int64_t kMaxThreadRowLength = 32;
inline constexpr int64_t kMinThreadRows = int64_t{1} << 16;
inline constexpr int64_t kMaxRowLength = ReductionStrategy::kMaxGroupedExtent;

// How a row kernel's blocks take rows: a thread each, 256 to a block,
// while every stage's rows are at most kMaxThreadRowLength long and there
// are kMinThreadRows rows or more; else RowGroupsPerBlock(rows) rows to a
// block, as grouped reductions share blocks, with lanes threads each: a
// power of two from 32, up to the longest row or 256 threads a block.
// Fewer rows a thread each leave the device mostly idle, and each thread
// loads its row's elements one after the other, every stage: the tiny
// transformer's 64 LayerNorm-gradient rows of 32 took 17 to 20 us so on
// an H100.
struct RowKernelShape {
  int lanes = 1;
  int rows_per_block = 256;
};
RowKernelShape ChooseRowKernelShape(const std::vector<RowKernelStage>& stages,
                                    int64_t rows);

// A kernel over rows [0, rows) that runs each stage in turn for a row,
// with ChooseRowKernelShape's threads per row: a reduce stage (one output per
// row) folds the row's elements by lanes and halves them in shared memory, a
// loop stage computes the row's row_length consecutive elements, each lane
// a strided share. A stage may read what an earlier one stored for the
// same row: the block synchronizes between stages.
std::string EmitCudaRowKernel(const std::vector<RowKernelStage>& stages,
                              int64_t rows, const std::string& name);
se::LaunchDimensions RowKernelLaunchDimensions(
    const std::vector<RowKernelStage>& stages, int64_t rows);

// The device function a product kernel (a gemm's, GemmKernelSource, or a
// convolution's) calls with each product element to run `program`, a loop
// program over the product whose kReducedValue is that element. The first
// parameters are the kernel's own operands, which its source names
// `operands` (lhs and rhs, say); the others become kernel parameters.
EpilogueSource EmitCudaEpilogue(const KernelProgram& program,
                                const KernelParameters& parameters,
                                absl::Span<const std::string> operands,
                                const std::string& function);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_CUDA_EMITTER_H_
