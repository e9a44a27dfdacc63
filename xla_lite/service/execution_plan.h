#ifndef XLA_LITE_SERVICE_EXECUTION_PLAN_H_
#define XLA_LITE_SERVICE_EXECUTION_PLAN_H_

// What the compiled program does, before buffers have addresses: logical
// buffers (one per materialized value, plus copy destinations) and the ops
// that read and write them, in execution order.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xla_lite/hlo/hlo_module.h"
#include "xla_lite/runtime/collective_thunk.h"
#include "xla_lite/service/convolution/dnn_convolution.h"
#include "xla_lite/service/cuda_emitter.h"
#include "xla_lite/service/gemm/gemm_kernel_emitter.h"
#include "xla_lite/service/gemm_lowering.h"
#include "xla_lite/service/kernel_program.h"

namespace xla_lite::gpu {

struct ControlFlowPlan;

// Which gemms and convolutions run as the compiler's own kernels rather
// than library calls. Only those take fused elementwise epilogues, so the
// plan and the thunk emitter follow one decision.
struct KernelEmission {
  GemmEmission gemm;
  DnnConvolutionRule dnn_convolution;
  // DebugOptions' xla_allow_excess_precision: every lowered program keeps
  // bf16 and f16 arithmetic in f32 between stores and converts
  // (KernelProgram::AllowExcessPrecision).
  bool allow_excess_precision = false;
  // DebugOptions' xla_gpu_default_precision_allows_tf32: DEFAULT-precision
  // f32 dots may round their operands to TF32 (GemmConfig::allow_tf32),
  // on BLAS and on the emitted gemm's tensor cores alike.
  bool default_precision_tf32 = true;
  // DebugOptions' xla_gpu_f32_gemm_on_fp64_tensor_cores on a device with
  // fast FP64 tensor cores (compute capability 9.0): f32 gemms that may not
  // use TF32 and suit them (SuitsF64TensorCores) run there as the emitted
  // gemm (GemmConfig::f64_tensor_cores).
  bool f64_tensor_cores = false;
  // The GPU's multiprocessors (DeviceDescription::core_count), which loop
  // kernels are laid out to fill (ChooseLoopLayout); kernels for the host
  // platform keep the default, as their CUDA C never runs.
  int64_t multiprocessors = kDefaultMultiprocessors;

  // A lowered program as the plan keeps it, with the rule above applied.
  std::shared_ptr<const KernelProgram> Finish(
      std::unique_ptr<KernelProgram> program) const {
    if (allow_excess_precision) program->AllowExcessPrecision();
    return program;
  }
  // A lowered gemm as the plan keeps it, TF32 as the options allow: the
  // config the plan holds is the one that runs, so the emission rule and
  // the kernel's tiling (which follows allow_tf32) see the same product.
  GemmConfig Finish(GemmConfig gemm) const {
    gemm.allow_tf32 = gemm.allow_tf32 && default_precision_tf32;
    gemm.f64_tensor_cores =
        f64_tensor_cores && SuitsF64TensorCores(gemm, this->gemm);
    return gemm;
  }
};

struct LogicalBuffer {
  enum class Placement {
    // Scratch, packed into the temp allocation by liveness.
    kTemp,
    // Parameter `number`'s allocation: the parameter itself, or a result
    // aliased to it (written in place, after every read of the parameter's
    // own value). In a loop's condition or body or a conditional's branch,
    // `number` counts the parameter's leaves (see ExecutionPlan).
    kParameter,
    // Read-only data from `instruction`'s literal.
    kConstant,
    // Result `number`'s own allocation (nested computations: the slice the
    // caller gives its result leaf `number`).
    kOutput,
    // A library gemm's scratch (see IsLibraryGemm): a computation's
    // workspaces lie side by side in an allocation of their own, so that
    // they share bytes with nothing else (two ops sharing bytes are
    // ordered in a command buffer, which values packed around workspaces
    // held for the whole step would make arbitrary).
    kWorkspace,
  };

  int id = -1;
  std::string name;
  // The value it holds; null for buffers that only copies define.
  const HloInstruction* instruction = nullptr;
  int64_t size = 0;
  Placement placement = Placement::kTemp;
  int64_t number = -1;

  std::string ToString() const;
};

struct PlannedOp {
  enum class Kind {
    kLoopKernel,
    kReduceKernel,
    kGemm,
    kCopy,
    kRowKernel,
    // convolution, reduce-window or select-and-scatter (roots[0]): reads
    // its array operands in order, writes its value (then, for a split-K
    // convolution, its scratch). A convolution with an epilogue `program`
    // (kernel merging) reads {lhs, rhs, program inputs...} and writes the
    // program's outputs (then the scratch).
    kWindowKernel,
    kCollective,
    kScatter,
    // `control` holds the condition and body plans. reads = the initial
    // state's leaves, writes = the state's leaves (the loop's results),
    // which the condition and body read and the body updates in place.
    kWhile,
    // `control` holds a plan per branch. reads = {selector, the branches'
    // operand leaves...}, writes = the result leaves every branch writes.
    kConditional,
  };

  // A row kernel's part: a loop or reduce program with its own buffers.
  struct Stage {
    std::shared_ptr<const KernelProgram> program;
    std::vector<int> reads, writes;  // Program inputs, outputs.
  };

  Kind kind = Kind::kLoopKernel;
  std::string name;
  std::vector<int> reads;   // Buffer ids; kernels: program input i.
  std::vector<int> writes;  // Buffer ids; kernels: program output k.
  // Kernels.
  std::shared_ptr<const KernelProgram> program;
  // Loop and window kernels: the values it computes (writes[k] holds
  // roots[k]).
  std::vector<const HloInstruction*> roots;
  // Gemms: reads = {lhs, rhs}, writes = {output}; an accumulating gemm
  // (beta = 1) reads {lhs, rhs, addend}, and its output starts as the
  // addend's value. A gemm with an epilogue `program` (kernel merging)
  // reads {lhs, rhs, program inputs...} and writes the program's outputs.
  GemmConfig gemm;
  // Collectives: reads = {operand}, writes = {result}.
  CollectiveConfig collective;
  // Row kernels: one thread per row runs every stage in turn, each over
  // the row's elements (see row_fusion.h). reads and writes above are the
  // stages' union, less what an earlier stage of the same kernel wrote.
  // Scatters: stages[0] fills the scatter's buffer with its operand (a
  // loop program computing it, or, without a program, a copy of the one
  // buffer it reads), then stages[1], the scatter program, combines the
  // updates into it. writes = {the scatter's buffer}.
  std::vector<Stage> stages;
  int64_t rows = 0;
  // Whiles and conditionals.
  std::shared_ptr<const ControlFlowPlan> control;

  std::string ToString() const;
};

// The plan of one computation. The entry's parameters and results are
// arrays. A nested computation (a loop's condition or body, a branch) has
// one parameter, often a tuple, and may return one: its parameter's leaves
// (array elements of the tuple, nested tuples flattened in order) are its
// parameters 0..n-1 and its root's leaves its results; the caller binds
// both to its own buffers (AssignBuffers).
struct ExecutionPlan {
  std::string name;
  std::vector<LogicalBuffer> buffers;
  std::vector<PlannedOp> ops;  // In execution order.
  // Per parameter (leaf): the buffer holding its value, -1 for none.
  std::vector<int> parameter_buffers;
  // Per result (the root tuple's elements, or the one array root).
  std::vector<int> output_buffers;

  std::string ToString() const;
};

// What a while or conditional runs. A body's result leaf i is written into
// its parameter leaf i (the loop state, updated in place); a condition's one
// result is its pred; a branch's results are the conditional's results.
struct ControlFlowPlan {
  // While: {condition, body}; conditional: the branches in order.
  std::vector<ExecutionPlan> computations;
  // While: how many times the body runs, where the HLO says it
  // (KnownTripCount); -1 otherwise.
  int64_t known_trip_count = -1;
  // Conditional: the selector's buffer and, per branch, its operand's
  // leaves (buffers of the enclosing plan).
  int selector = -1;
  std::vector<std::vector<int>> branch_operands;
};

// Whether `op` runs as a library call (a GemmThunk): a gemm with no
// epilogue that `emission` does not give the compiler's own kernel. Where
// the platform's BLAS library takes a workspace, the plan gives each one
// as the op's last write (a kWorkspace buffer; see gemm_workspaces.h).
bool IsLibraryGemm(const PlannedOp& op, const GemmEmission& emission);

// Leaves of a value of `shape` (1 for an array).
int64_t LeafCount(const Shape& shape);

// Fuses (FusionPlan), lowers and orders the entry computation of a module
// that went through the HLO passes (calls inlined, layouts normalized, dots
// canonicalized), then merges loop kernels (MergeLoopKernels). Results
// aliased to a parameter are written into it in place when that is safe
// (see execution_plan.cc), else copied there after its last read.
// `emission` says which gemms and convolutions will be emitted kernels,
// which can take elementwise epilogues. Whiles and conditionals become kWhile
// and kConditional ops whose computations are planned the same way, nested up
// to kMaxControlFlowDepth deep; a computation is planned once per while or
// conditional that runs it, kMaxPlannedInstructions in all.
inline constexpr int kMaxControlFlowDepth = 64;
inline constexpr int64_t kMaxPlannedInstructions = int64_t{1} << 18;
absl::StatusOr<ExecutionPlan> BuildExecutionPlan(
    const HloModule& module, const KernelEmission& emission);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_SERVICE_EXECUTION_PLAN_H_
