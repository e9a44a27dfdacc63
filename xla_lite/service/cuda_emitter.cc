#include "xla_lite/service/cuda_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "glog/logging.h"
#include "xla_lite/float16.h"
#include "xla_lite/primitive_util.h"
#include "xla_lite/service/cuda_program_emitter.h"
#include "xla_lite/service/elemental_scalar_ops.h"
#include "xla_lite/service/row_registers.h"

namespace xla_lite::gpu {
namespace {

using cuda_internal::ParameterDeclaration;
using cuda_internal::ProgramEmitter;

// Below this reduced extent a thread per output loops over the elements;
// from it on a block per output shares the work.
constexpr int64_t kBlockReductionMinExtent = 64;
// From this reduced extent on, a reduction over columns gives each output
// several threads (ReductionStrategy::column).
constexpr int64_t kColumnReductionMinExtent =
    2 * ReductionStrategy::kColumnRows;
constexpr int kLoopThreads = 256;
// Threads and blocks resident on one multiprocessor of the GPUs this
// tunes for (compute capability 8.0 and 9.0).
constexpr int kMaxThreadsPerMultiprocessor = 2048;
constexpr int kMaxBlocksPerMultiprocessor = 32;
// Elements a thread of an unrolled loop kernel takes a pass (LoopUnroll).
constexpr int kLoopUnroll = 4;
constexpr int64_t kMaxBlocks = 65535;
int64_t CeilOfRatio(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Whether consecutive outputs read consecutive elements of some input
// while the reduced elements of one output lie apart: then lanes over
// outputs coalesce and lanes over reduced elements would not.
bool ReadsColumns(const KernelProgram& program) {
  if (program.outputs()[0].buffer.element_count < 2 ||
      program.reduced_elements() < 2) {
    return false;
  }
  bool columns = false;
  for (int id : program.Closure({program.value_op()})) {
    const ExprOp& op = program.op(id);
    if (op.kind != ExprKind::kLoad) continue;
    int index = op.operands[0];
    if (program.DependsOnData(index)) continue;
    int64_t at = EvaluateIndex(program, index, 0, 0);
    int64_t next_output = EvaluateIndex(program, index, 1, 0) - at;
    int64_t next_reduced = EvaluateIndex(program, index, 0, 1) - at;
    if (next_reduced == 1) return false;  // A row: lanes over r coalesce.
    if (next_output == 1) columns = true;
  }
  return columns;
}

bool NeedsWideIndex(const KernelProgram& program) {
  int64_t max = std::max({program.LoopExtent(), program.reduced_elements(),
                          program.update_elements()});
  for (const KernelBuffer& input : program.inputs()) {
    max = std::max(max, input.element_count);
  }
  return max >= (int64_t{1} << 30);
}

}  // namespace

int RowGroupsPerBlock(int64_t rows) {
  int groups = ReductionStrategy::kMaxRowGroups;
  while (groups > 1 && rows / groups < ReductionStrategy::kMinGroupedBlocks) {
    groups /= 2;
  }
  return groups;
}

ReductionStrategy ChooseReductionStrategy(const KernelProgram& program) {
  ReductionStrategy strategy;
  int64_t extent = program.reduced_elements();
  strategy.block_per_output = extent >= kBlockReductionMinExtent;
  if (extent >= kColumnReductionMinExtent && ReadsColumns(program)) {
    strategy.block_per_output = false;
    strategy.column = true;
    if (extent < ReductionStrategy::kWideColumnMinExtent) {
      strategy.threads_per_block =
          ReductionStrategy::kColumnLanes * ReductionStrategy::kColumnRows;
      return strategy;
    }
    const int64_t outputs = program.outputs()[0].buffer.element_count;
    int lanes = ReductionStrategy::kColumnLanes;
    while (lanes > ReductionStrategy::kMinColumnLanes &&
           outputs / lanes < ReductionStrategy::kMinColumnBlocks) {
      lanes /= 2;
    }
    strategy.column_lanes = lanes;
    strategy.column_rows = ReductionStrategy::kWideColumnThreads / lanes;
    strategy.threads_per_block = ReductionStrategy::kWideColumnThreads;
    return strategy;
  }
  const int64_t outputs = program.outputs()[0].buffer.element_count;
  if (strategy.block_per_output &&
      extent <= ReductionStrategy::kMaxGroupedExtent) {
    // Fewer outputs per block where more would leave too few blocks: on an
    // H100, 2048 LayerNorm rows of 256 took 7.6 us a block each and 13.1
    // us eight to a block, and 8192 softmax rows of 128 took 12.1 us a
    // block each and 4.6 us eight to a block.
    const int groups = RowGroupsPerBlock(outputs);
    if (groups > 1) {
      strategy.row_groups = groups;
      strategy.threads_per_block = kLoopThreads;
      return strategy;
    }
  }
  int threads = 32;
  while (threads < extent && threads < 256) threads *= 2;
  strategy.threads_per_block =
      strategy.block_per_output ? threads : kLoopThreads;
  return strategy;
}

namespace {

int LoopUnroll(const KernelProgram& program) {
  // On an H100 (132 multiprocessors, 2048 threads each) a loop of 512K
  // elements fills the device about twice at 4 a thread.
  constexpr int64_t kMinUnrolledExtent = int64_t{1} << 19;
  const int64_t extent = program.LoopExtent();
  if (extent < kMinUnrolledExtent ||
      extent % (kLoopThreads * kLoopUnroll) != 0) {
    return 1;
  }
  return kLoopUnroll;
}

// Whether some output needs an op that no element depends on and that
// costs more than a register: a power or quotient of a scalar, say.
bool ComputesInvariants(const KernelProgram& program) {
  const std::vector<bool> element = program.ElementOps();
  std::vector<int> roots;
  for (const KernelOutput& output : program.outputs()) {
    roots.push_back(output.op);
  }
  for (int id : program.Closure(roots)) {
    const ExprKind kind = program.op(id).kind;
    if (!element[id] &&
        (kind == ExprKind::kUnary || kind == ExprKind::kBinary)) {
      return true;
    }
  }
  return false;
}

}  // namespace

LoopLayout ChooseLoopLayout(const KernelProgram& program,
                            int64_t multiprocessors) {
  CHECK(program.kind() == KernelProgram::Kind::kLoop);
  LoopLayout layout;
  const auto groups = program.OutputGroups();
  const bool invariants = ComputesInvariants(program);
  // One group over elements enough to unroll keeps the unrolled run
  // even with invariant ops: that is what was measured on such loops (the
  // GELU and its gradient), and their invariants are rare.
  if (groups.size() == 1 && (!invariants || LoopUnroll(program) > 1)) {
    layout.unroll = LoopUnroll(program);
    return layout;
  }
  const int64_t extent = program.LoopExtent();
  // Blocks of kLoopThreads that fill the device's multiprocessors once.
  const int64_t resident_blocks =
      std::max<int64_t>(1, multiprocessors) *
      (kMaxThreadsPerMultiprocessor / kLoopThreads);
  int64_t per_thread =
      invariants ? std::max<int64_t>(
                       1, CeilOfRatio(extent, kLoopThreads * resident_blocks))
                 : 1;
  while (true) {
    layout.group_blocks.clear();
    int64_t total = 0;
    for (const auto& [count, outputs] : groups) {
      layout.group_blocks.push_back(std::max<int64_t>(
          1, CeilOfRatio(count, kLoopThreads * per_thread)));
      total += layout.group_blocks.back();
    }
    if (total <= kMaxBlocks || per_thread >= extent) break;
    per_thread *= 2;
  }
  return layout;
}

se::LaunchDimensions KernelLaunchDimensions(const KernelProgram& program,
                                            int64_t multiprocessors) {
  if (program.kind() == KernelProgram::Kind::kReduce) {
    ReductionStrategy strategy = ChooseReductionStrategy(program);
    int64_t outputs = program.outputs()[0].buffer.element_count;
    if (strategy.column || strategy.row_groups > 1) {
      const int64_t per_block =
          strategy.column ? strategy.column_lanes : strategy.row_groups;
      return se::LaunchDimensions(
          static_cast<uint32_t>(std::clamp<int64_t>(
              (outputs + per_block - 1) / per_block, 1, kMaxBlocks)),
          strategy.threads_per_block);
    }
    if (strategy.block_per_output) {
      return se::LaunchDimensions(
          static_cast<uint32_t>(std::clamp<int64_t>(outputs, 1, kMaxBlocks)),
          strategy.threads_per_block);
    }
  }
  int64_t n = program.kind() == KernelProgram::Kind::kReduce
                  ? program.outputs()[0].buffer.element_count
                  : program.LoopExtent();
  if (program.kind() == KernelProgram::Kind::kScatter) {
    n = program.update_elements();
  }
  int unroll = 1;
  if (program.kind() == KernelProgram::Kind::kLoop) {
    const LoopLayout layout = ChooseLoopLayout(program, multiprocessors);
    if (!layout.group_blocks.empty()) {
      int64_t blocks = 0;
      for (int64_t b : layout.group_blocks) blocks += b;
      return se::LaunchDimensions(static_cast<uint32_t>(blocks), kLoopThreads);
    }
    unroll = layout.unroll;
  }
  const int64_t per_block = int64_t{kLoopThreads} * unroll;
  int64_t blocks = (n + per_block - 1) / per_block;
  return se::LaunchDimensions(
      static_cast<uint32_t>(std::clamp<int64_t>(blocks, 1, kMaxBlocks)),
      kLoopThreads);
}

namespace {

// Clamped coordinates (concatenate, pad) and start indices (gather,
// scatter); see IndexRemap::Dim and DynamicTerm.
constexpr char kIndexHelpers[] = R"(
static __device__ __forceinline__ long long xl_clamp_coordinate(
    long long v, long long divisor, long long limit) {
  v /= divisor;
  if (limit > 0) v = v < 0 ? 0 : (v >= limit ? limit - 1 : v);
  return v;
}
static __device__ __forceinline__ int xl_clamp_start(int v, int max) {
  return v < 0 ? 0 : (v > max ? max : v);
}
// Lane i ^ m's value, within 32 lanes (a warp; half an AMD wavefront).
#if defined(__HIP__) || defined(__HIPCC__)
#define XL_SHFL_XOR(v, m) __shfl_xor((v), (m), 32)
#else
#define XL_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m), 32)
#endif
static __device__ __forceinline__ float xl_shfl_xor(float v, int m) {
  return XL_SHFL_XOR(v, m);
}
static __device__ __forceinline__ int xl_shfl_xor(int v, int m) {
  return XL_SHFL_XOR(v, m);
}
static __device__ __forceinline__ bool xl_shfl_xor(bool v, int m) {
  return XL_SHFL_XOR((int)v, m) != 0;
}
)";

// What every emitted source starts with: `title`, the programs it runs
// (as comments), the index type wide enough for all of them and the
// helper functions.
std::string Prelude(const std::string& title,
                    const std::vector<const KernelProgram*>& programs) {
  std::string text = absl::StrCat("// ", title);
  bool wide = false;
  for (const KernelProgram* program : programs) {
    absl::StrAppend(
        &text, "\n// ",
        absl::StrJoin(absl::StrSplit(program->ToString(), '\n'), "\n// "));
    wide = wide || NeedsWideIndex(*program);
  }
  absl::StrAppend(&text, "\n",
                  wide ? "typedef unsigned long long idx_t;\n"
                       : "typedef unsigned int idx_t;\n",
                  kFloat16DeviceSource, kElementalScalarOpsDeviceSource,
                  kIndexHelpers);
  return text;
}

}  // namespace

RowKernelShape ChooseRowKernelShape(const std::vector<RowKernelStage>& stages,
                                    int64_t rows) {
  int64_t longest = 1;
  for (const RowKernelStage& stage : stages) {
    longest =
        std::max(longest, stage.program->kind() == KernelProgram::Kind::kReduce
                              ? stage.program->reduced_elements()
                              : stage.row_length);
  }
  if (longest <= kMaxThreadRowLength && rows >= kMinThreadRows) {
    return {1, kLoopThreads};
  }
  RowKernelShape shape;
  shape.rows_per_block = RowGroupsPerBlock(rows);
  shape.lanes = 32;
  while (shape.lanes < longest &&
         shape.lanes * shape.rows_per_block < kLoopThreads) {
    shape.lanes *= 2;
  }
  return shape;
}

std::string EmitCudaRowKernel(const std::vector<RowKernelStage>& stages,
                              int64_t rows, const std::string& name) {
  CHECK(!stages.empty()) << name;
  std::vector<const KernelProgram*> programs;
  for (const RowKernelStage& stage : stages) {
    programs.push_back(stage.program.get());
  }
  const RowKernelShape shape = ChooseRowKernelShape(stages, rows);
  const int lanes = shape.lanes, per_block = shape.rows_per_block;
  const cuda_internal::RowRegisterPlan registers =
      cuda_internal::PlanRowRegisters(stages, lanes, per_block);
  // Every thread of a block runs every pass, so that stages can meet at
  // __syncthreads(); a group past the last row repeats it, storing nothing.
  // The bound asks for a full multiprocessor of threads (2048 in at most
  // 32 blocks: 32 registers a thread for blocks of 64 threads and more).
  // The medium transformer's LayerNorm and softmax backward kernels took
  // 36 to 40 registers, so their 1024 blocks of 256 made two waves where
  // they now make one (9.2 -> 7.5 us each on an H200).
  const int threads = lanes * per_block;
  std::string source = absl::StrCat(
      Prelude("Generated by xla_lite, a row kernel of stages:", programs),
      kAwaitProducersSource, "\n",
      ProgramEmitter(*stages.back().program, stages.back().parameters)
          .Signature(name, threads,
                     std::min(kMaxThreadsPerMultiprocessor / threads,
                              kMaxBlocksPerMultiprocessor)),
      " {\n  XL_AWAIT_PRODUCERS();\n", "  const idx_t x = threadIdx.x % ",
      lanes, ", y = threadIdx.x / ", lanes, ";\n", registers.row_declarations,
      "  for (idx_t base = (idx_t)blockIdx.x * ", per_block, "; base < ", rows,
      "; base += (idx_t)gridDim.x * ", per_block, ") {\n",
      "    const bool live = base + y < ", rows, ";\n",
      "    const idx_t row = live ? base + y : ", rows - 1, ";\n",
      registers.element_declarations);
  for (int s = 0; s < stages.size(); ++s) {
    const RowKernelStage& stage = stages[s];
    ProgramEmitter emitter(*stage.program, stage.parameters,
                           &registers.stages[s]);
    absl::StrAppend(&source,
                    stage.program->kind() == KernelProgram::Kind::kReduce
                        ? emitter.ReduceRow(lanes, per_block)
                        : emitter.LoopRow(stage.row_length, lanes));
  }
  absl::StrAppend(&source, "  }\n}\n");
  return source;
}

se::LaunchDimensions RowKernelLaunchDimensions(
    const std::vector<RowKernelStage>& stages, int64_t rows) {
  const RowKernelShape shape = ChooseRowKernelShape(stages, rows);
  const int64_t per_block = shape.rows_per_block;
  return se::LaunchDimensions(
      static_cast<uint32_t>(std::clamp<int64_t>(
          (rows + per_block - 1) / per_block, 1, kMaxBlocks)),
      static_cast<uint32_t>(shape.lanes * per_block));
}

namespace {

// The epilogue's function over a run of kCount adjacent elements from
// i0 (aligned to kCount): each element's computation as in the scalar
// function, its f32 outputs gathered and stored in one vector store
// (xl_store_run), the others element by element. Storing after every
// element's loads is safe: each element reads its inputs only at its own
// index.
std::string EpilogueRunFunction(const KernelProgram& program,
                                const ProgramEmitter& emitter, int value,
                                const std::vector<int>& roots,
                                const std::vector<std::string>& params,
                                const KernelParameters& parameters,
                                const std::string& function) {
  std::vector<std::string> run_params = {"idx_t i0", "const float* values"};
  run_params.insert(run_params.end(), params.begin() + 1, params.end());
  std::string text = absl::StrCat(
      "template <int kCount>\nstatic __device__ __forceinline__ void ",
      function, "_run(", absl::StrJoin(run_params, ", "), ") {\n");
  std::string stores;
  for (int k = 0; k < program.outputs().size(); ++k) {
    if (program.outputs()[k].buffer.type != PrimitiveType::F32) continue;
    absl::StrAppend(&text, "  float o", k, "[kCount];\n");
    absl::StrAppend(&stores, "  xl_store_run<kCount>(p",
                    parameters.output_param[k], " + i0, o", k, ");\n");
  }
  absl::StrAppend(&text,
                  "#pragma unroll\n  for (int l = 0; l < kCount; ++l) {\n",
                  "    const idx_t i = i0 + l;\n", "    const float ",
                  emitter.Name(value), " = values[l];\n");
  emitter.EmitOps(program.Closure(roots), "    ", &text);
  for (int k = 0; k < program.outputs().size(); ++k) {
    const std::string result = emitter.Name(program.outputs()[k].op);
    absl::StrAppend(&text, "    ",
                    program.outputs()[k].buffer.type == PrimitiveType::F32
                        ? absl::StrCat("o", k, "[l] = ", result, ";")
                        : emitter.Store(k, result, "i"),
                    "\n");
  }
  return absl::StrCat(text, "  }\n", stores, "}\n");
}

}  // namespace

EpilogueSource EmitCudaEpilogue(const KernelProgram& program,
                                const KernelParameters& parameters,
                                absl::Span<const std::string> operands,
                                const std::string& function) {
  CHECK(program.kind() == KernelProgram::Kind::kLoop) << function;
  ProgramEmitter emitter(program, parameters);
  int value = -1;
  for (int id = 0; id < program.ops().size(); ++id) {
    if (program.op(id).kind == ExprKind::kReducedValue) value = id;
  }
  CHECK_GE(value, 0) << function << ": an epilogue reads the product";
  std::vector<std::string> params = {
      absl::StrCat("idx_t i, float ", emitter.Name(value))};
  EpilogueSource source;
  for (int p = 0; p < parameters.count(); ++p) {
    std::string param = ParameterDeclaration(parameters, p);
    params.push_back(param);
    // The kernel's own operands come first: its source names them.
    if (p < operands.size()) {
      absl::StrAppend(&source.arguments, ", ", operands[p]);
      continue;
    }
    absl::StrAppend(&source.parameters, ", ", param);
    absl::StrAppend(&source.arguments, ", p", p);
  }
  std::vector<int> roots;
  for (const KernelOutput& output : program.outputs()) {
    CHECK_EQ(output.buffer.element_count, program.MaxOutputElements())
        << function << ": every epilogue output covers the product";
    roots.push_back(output.op);
  }
  source.function = function;
  source.definitions =
      absl::StrCat(Prelude("Epilogue, from:", {&program}), kStoreRunSource,
                   "\nstatic __device__ __forceinline__ void ", function, "(",
                   absl::StrJoin(params, ", "), ") {\n");
  emitter.EmitOps(program.Closure(roots), "  ", &source.definitions);
  for (int k = 0; k < program.outputs().size(); ++k) {
    absl::StrAppend(
        &source.definitions, "  ",
        emitter.Store(k, emitter.Name(program.outputs()[k].op), "i"), "\n");
  }
  absl::StrAppend(&source.definitions, "}\n",
                  EpilogueRunFunction(program, emitter, value, roots, params,
                                      parameters, function));
  return source;
}

std::string EmitCudaKernel(const KernelProgram& program,
                           const KernelParameters& parameters,
                           const std::string& name, int64_t multiprocessors) {
  ProgramEmitter emitter(program, parameters);
  // Blocks past 256 threads (wide column strips: 1024) need the bound, or
  // the compiler may take more registers a thread than such a block has.
  const int threads =
      KernelLaunchDimensions(program, multiprocessors).threads_per_block.x;
  std::string source = absl::StrCat(
      Prelude("Generated by xla_lite from:", {&program}), kAwaitProducersSource,
      "\n", emitter.Signature(name, threads > kLoopThreads ? threads : 0),
      " {\n  XL_AWAIT_PRODUCERS();\n");
  if (program.kind() == KernelProgram::Kind::kLoop) {
    absl::StrAppend(&source,
                    emitter.LoopBody(ChooseLoopLayout(program, multiprocessors)));
  } else if (program.kind() == KernelProgram::Kind::kScatter) {
    absl::StrAppend(&source, emitter.ScatterBody());
  } else {
    absl::StrAppend(&source,
                    emitter.ReduceBody(ChooseReductionStrategy(program)));
  }
  absl::StrAppend(&source, "}\n");
  return source;
}

}  // namespace xla_lite::gpu
