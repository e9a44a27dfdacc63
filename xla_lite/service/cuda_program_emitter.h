#ifndef XLA_LITE_SERVICE_CUDA_PROGRAM_EMITTER_H_
#define XLA_LITE_SERVICE_CUDA_PROGRAM_EMITTER_H_

// How one KernelProgram becomes CUDA C statements over a kernel's
// parameters: each op's C expression, and the loop, reduce, scatter and
// row bodies. cuda_emitter's entry points (whole kernels, row kernels,
// the epilogues of product kernels) assemble kernels from these; this is
// not an interface of its own.

#include <cstdint>
#include <string>
#include <vector>

#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/kernel_program.h"
#include "xla_lite/service/lazy_selects.h"
#include "xla_lite/service/row_registers.h"

namespace xla_lite::gpu::cuda_internal {

// The C declaration of kernel parameter `p` ("const float* __restrict__
// p0", say).
std::string ParameterDeclaration(const KernelParameters& parameters, int p);

class ProgramEmitter {
 public:
  // With `registers`, a row stage's loads and outputs that other stages
  // hand on in registers (PlanRowRegisters) go through them.
  ProgramEmitter(const KernelProgram& program,
                 const KernelParameters& parameters,
                 const StageRegisters* registers = nullptr)
      : program_(program), parameters_(parameters), registers_(registers) {}

  // The C name of op `id`'s value: i (the element index), r (the reduced
  // index), x<id> for indices, v<id> for values.
  std::string Name(int id) const;
  // One statement defining op `id` (empty for values defined elsewhere).
  std::string Statement(int id) const;
  // The statements of `ids`, each on a line of its own after `indent`.
  void EmitOps(const std::vector<int>& ids, const std::string& indent,
               std::string* out) const;
  // The same for a closure whose only values used outside are `roots`,
  // with the sides of lazy selects (LazySelects) inside branches. Ops
  // marked in `defined` (by op id) are left out: defined already.
  void EmitOpsWithLazySelects(const std::vector<int>& ids,
                              const std::vector<int>& roots,
                              const std::string& indent, std::string* out,
                              const std::vector<bool>* defined = nullptr) const;
  // extern "C" __global__ void name(<every parameter>), bounded to blocks
  // of max_threads when it is not 0 (so that the compiler keeps a block
  // that large within the register file), and to registers that let
  // min_blocks such blocks share a multiprocessor when that is not 0.
  std::string Signature(const std::string& name, int max_threads = 0,
                        int min_blocks = 0) const;
  // Stores `value` into output `output` at `index`.
  std::string Store(int output, const std::string& value,
                    const std::string& index) const;
  // Keeps `value`, output `output`'s, in the register the stage's
  // StageRegisters name for it; empty when there is none.
  std::string Keep(int output, const std::string& value) const;

  std::string LoopBody(const LoopLayout& layout) const;
  std::string ReduceBody(const ReductionStrategy& strategy) const;
  // Several outputs per block, each folded by a group of threads: lanes
  // over outputs for columns, over reduced elements for grouped rows.
  std::string TiledReduceBody(const ReductionStrategy& strategy) const;
  std::string ScatterBody() const;
  // Row kernels' stages (see EmitCudaRowKernel), for the row in `row`,
  // whose `lanes` threads are x in [0, lanes) of group y; `live` says
  // whether the row is real or a repeat of the last (which stores nothing).
  std::string LoopRow(int64_t row_length, int lanes) const;
  std::string ReduceRow(int lanes, int rows_per_block) const;

 private:
  // The reduce program's ops, split by when they run.
  struct ReduceParts {
    std::vector<int> outer, inner, epilogue;
    int reduced = -1;
  };
  ReduceParts SplitReduce() const;
  // One thread's whole reduction for output `i` (in scope).
  std::string ReduceOutput(const ReduceParts& parts,
                           const std::string& indent) const;
  // The reduction of output `i` (in scope) by a group of `folds` threads:
  // thread `fold` folds a strided share of the elements into its partial,
  // prefix + fold + suffix in shared memory, the group halves the
  // partials, and thread 0 finishes when `live` (in scope) holds.
  // With `warp_lanes`, the group's threads are whole warps, `fold` the
  // lane: the last halvings go through warp shuffles (HalveGroup).
  std::string GroupReduce(const ReduceParts& parts, const std::string& fold,
                          int folds, const std::string& prefix,
                          const std::string& suffix, bool warp_lanes) const;
  // Defines the reduced value from `acc_expr`, then the epilogue and store.
  std::string FinishReduce(const ReduceParts& parts,
                           const std::string& acc_expr,
                           const std::string& indent) const;
  // Lanes [0, valid) of `lane` hold partial results in
  // prefix + lane + suffix; halves them until at most `stop` are left, a
  // power of two (1: the result, in lane 0). Returns how many are left.
  int64_t HalvePartials(int64_t valid, int64_t stop, const std::string& lane,
                        const std::string& prefix, const std::string& suffix,
                        std::string* body) const;
  // Halves a group's `valid` partials (each thread's `acc`) down to lane
  // 0's prefix + 0 + suffix; with `warp_lanes`, the last steps by warp
  // shuffles.
  void HalveGroup(int64_t valid, bool warp_lanes, const std::string& fold,
                  const std::string& prefix, const std::string& suffix,
                  const char* ctype, std::string* body) const;
  // `ids` (none deferred into an enclosing side, none `defined`), each
  // lazy select of `lazy` as an if-else over its sides.
  void EmitLazyList(const LazySelects& lazy, const std::vector<int>& ids,
                    const std::string& indent, std::string* out,
                    const std::vector<bool>* defined) const;
  // A loop kernel's groups of outputs (OutputGroups), each over blocks of
  // its own (LoopLayout::group_blocks).
  std::string GroupLoops(const std::vector<int64_t>& group_blocks) const;
  // The reduce program's reducer applied to `a` and `b`.
  std::string Reduce(const std::string& a, const std::string& b) const;

  const KernelProgram& program_;
  const KernelParameters& parameters_;
  const StageRegisters* registers_;
};

}  // namespace xla_lite::gpu::cuda_internal

#endif  // XLA_LITE_SERVICE_CUDA_PROGRAM_EMITTER_H_
