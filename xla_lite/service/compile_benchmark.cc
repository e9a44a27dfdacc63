// How long the compiler takes over JAX-exported training steps: the part of
// a warm first step (kernel cache on disk, libraries loaded) that is spent
// on the host before anything reaches the device.
//   BM_Parse/<model>     ParseHloModule of the model's train_step.hlo
//   BM_Compile/<model>   Compile of the parsed module: HLO passes, fusion
//                        plan, kernel emission, buffer assignment, thunks
//                        and command-buffer scheduling
// Compile gets no executor, so it lowers as if BLAS and DNN are loaded
// (what Compile assumes on a GPU host) and compiles no kernel: NVRTC runs
// when the executable is initialized, and is cached.
//
//   compile_benchmark [--models=a,b] [--dump_kernels=DIR]
//                     [--benchmark_... flags]
// run from the repository root (or a packed copy of configs/): models are
// read from configs/models/<name>/train_step.hlo. --dump_kernels writes
// each model's top-level thunks and emitted kernel sources, in program
// order, to DIR/<model>.txt: diffing two builds' dumps shows whether a
// change to the compiler changed what it emits.

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "base/file_util.h"
#include "benchmark/benchmark.h"
#include "xla_lite/debug_options.pb.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/runtime/command_buffer_thunk.h"
#include "xla_lite/runtime/kernel_thunk.h"
#include "xla_lite/service/compiler.h"

namespace xla_lite {
namespace {

// The largest steps the runtime runs, and one of each other family.
constexpr const char* kDefaultModels =
    "transformer_medium,transformer_bf16_medium,transformer_tiny,cnn_cifar,"
    "mlp_adam,scan_grad_accum";

std::string HloPath(const std::string& model) {
  return "configs/models/" + model + "/train_step.hlo";
}

void BM_Parse(benchmark::State& state, const std::string& text) {
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) {
      state.SkipWithError(module.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(module->get());
  }
}

void BM_Compile(benchmark::State& state, const std::string& text) {
  const DebugOptions options = DefaultDebugOptions();
  for (auto _ : state) {
    state.PauseTiming();
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    if (!module.ok()) {
      state.SkipWithError(module.status().ToString().c_str());
      return;
    }
    state.ResumeTiming();
    absl::StatusOr<std::unique_ptr<gpu::GpuExecutable>> executable =
        Compile(*std::move(module), /*executor=*/nullptr, options);
    if (!executable.ok()) {
      state.SkipWithError(executable.status().ToString().c_str());
      return;
    }
    state.PauseTiming();
    executable->reset();  // Teardown is not the compile's.
    state.ResumeTiming();
  }
}

// Every thunk in program order, command buffers opened (loops' and
// conditionals' bodies are not), with each emitted kernel's source.
void DumpThunk(const gpu::Thunk& thunk, std::ofstream& out) {
  if (thunk.kind() == gpu::Thunk::Kind::kCommandBuffer) {
    for (const auto& inner :
         static_cast<const gpu::CommandBufferThunk&>(thunk).thunks()) {
      DumpThunk(*inner, out);
    }
    return;
  }
  out << thunk.ToString() << "\n";
  if (thunk.kind() == gpu::Thunk::Kind::kKernel) {
    out << static_cast<const gpu::KernelThunk&>(thunk).spec().cuda_source
        << "\n";
  }
}

absl::Status DumpKernels(const std::string& model, const std::string& text,
                         const std::string& dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(text));
  ASSIGN_OR_RETURN(
      std::unique_ptr<gpu::GpuExecutable> executable,
      Compile(std::move(module), /*executor=*/nullptr, DefaultDebugOptions()));
  const std::string path = dir + "/" + model + ".txt";
  std::ofstream out(path);
  for (const auto& thunk : executable->thunks().thunks()) {
    DumpThunk(*thunk, out);
  }
  out.close();
  if (!out) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

// Registers both benchmarks for each model; a model that cannot be read is
// reported and left out.
int RegisterModels(const std::string& models, const std::string& dump_dir) {
  int registered = 0;
  for (const std::string& model :
       std::vector<std::string>(absl::StrSplit(models, ','))) {
    absl::StatusOr<std::string> text = base::ReadFileToString(HloPath(model));
    if (!text.ok()) {
      std::fprintf(stderr, "compile_benchmark: %s: %s\n", model.c_str(),
                   text.status().ToString().c_str());
      continue;
    }
    if (!dump_dir.empty()) {
      absl::Status dumped = DumpKernels(model, *text, dump_dir);
      if (!dumped.ok()) {
        std::fprintf(stderr, "compile_benchmark: %s: %s\n", model.c_str(),
                     dumped.ToString().c_str());
        continue;
      }
    }
    benchmark::RegisterBenchmark(("BM_Parse/" + model).c_str(), BM_Parse,
                                 *text)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Compile/" + model).c_str(), BM_Compile,
                                 *text)
        ->Unit(benchmark::kMillisecond);
    ++registered;
  }
  return registered;
}

}  // namespace
}  // namespace xla_lite

int main(int argc, char** argv) {
  std::string models = xla_lite::kDefaultModels;
  std::string dump_dir;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--models=", 0) == 0) {
      models = arg.substr(9);
    } else if (arg.rfind("--dump_kernels=", 0) == 0) {
      dump_dir = arg.substr(15);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_count = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_count, rest.data());
  if (xla_lite::RegisterModels(models, dump_dir) == 0) {
    std::fprintf(stderr, "compile_benchmark: no model could be read\n");
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
