#include "xla_lite/tools/run_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "xla_lite/hlo/npy.h"
#include "stream_executor/stream_executor.h"
#include "xla_lite/training/compiled_program.h"
#include "xla_lite/training/data_parallel_program.h"
#include "xla_lite/training/training_loop.h"

namespace xla_lite {
namespace {

std::string OutputPath(const std::string& dir, int64_t i) {
  return absl::StrCat(dir, "/output_", i, ".npy");
}

// Removes output_<j>.npy for j >= `count`: results of an earlier run with
// more of them, which would otherwise pass for this run's.
absl::Status RemoveStaleOutputs(const std::string& dir, int64_t count) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    int64_t j;
    if (absl::StartsWith(name, "output_") && absl::EndsWith(name, ".npy") &&
        absl::SimpleAtoi(name.substr(7, name.size() - 11), &j) && j >= count) {
      std::filesystem::remove(entry.path(), error);
      if (error) break;
    }
  }
  if (error) {
    return absl::ErrnoToStatus(
        error.value(), absl::StrCat("cannot remove old outputs in ", dir));
  }
  return absl::OkStatus();
}

// All or nothing: every result goes to a staging file first, and only when
// all of them are written are they renamed into place; a failure removes
// the staged files and leaves the folder's outputs as they were.
absl::Status WriteOutputs(const std::string& dir,
                          const std::vector<Literal>& results) {
  RETURN_IF_ERROR(base::CreateDirectories(dir));
  // What a rename cannot replace is refused before anything is written.
  for (int64_t i = 0; i < results.size(); ++i) {
    std::error_code error;
    auto type =
        std::filesystem::symlink_status(OutputPath(dir, i), error).type();
    if (!error && type != std::filesystem::file_type::regular &&
        type != std::filesystem::file_type::not_found) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot write ", OutputPath(dir, i), ": not a regular file"));
    }
  }
  std::vector<std::string> staged;
  absl::Status status;
  for (int64_t i = 0; i < results.size() && status.ok(); ++i) {
    std::string path = absl::StrCat(OutputPath(dir, i), ".staged.", getpid());
    status = WriteNpyFile(path, results[i]);
    if (status.ok()) staged.push_back(std::move(path));
  }
  for (int64_t i = 0; i < staged.size() && status.ok(); ++i) {
    if (std::rename(staged[i].c_str(), OutputPath(dir, i).c_str()) != 0) {
      status = absl::ErrnoToStatus(
          errno, absl::StrCat("cannot rename ", staged[i], " to ",
                              OutputPath(dir, i)));
    }
  }
  if (!status.ok()) {
    for (const std::string& path : staged) std::remove(path.c_str());
    return status;
  }
  return RemoveStaleOutputs(dir, results.size());
}

}  // namespace

absl::Status RunDataParallel(const RunFlags& flags, se::Platform* platform,
                             const DebugOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<DataParallelProgram> program,
                   DataParallelProgram::Create(flags.hlo, platform,
                                               flags.devices, options));
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   ReadArguments(flags.inputs, program->global_layout()));
  RETURN_IF_ERROR(program->SetArguments(inputs));
  RETURN_IF_ERROR(program->Steps(flags.steps).status());
  ASSIGN_OR_RETURN(std::vector<Literal> results, program->Results());
  RETURN_IF_ERROR(WriteOutputs(flags.outputs, results));
  std::printf("ran %lld step(s) of %s on %lld %s devices: %zu outputs "
              "written to %s\n",
              static_cast<long long>(flags.steps), program->name().c_str(),
              static_cast<long long>(flags.devices), platform->Name().c_str(),
              results.size(), flags.outputs.c_str());
  return absl::OkStatus();
}

absl::Status RunCommand(const RunFlags& flags, se::Platform* platform,
                        const DebugOptions& options) {
  if (flags.hlo.empty() || flags.inputs.empty() || flags.outputs.empty()) {
    return absl::InvalidArgumentError(
        "run needs --hlo=FILE --inputs=DIR --outputs=DIR");
  }
  if (flags.steps < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--steps must be at least 1, got ", flags.steps));
  }
  if (flags.devices > 1) return RunDataParallel(flags, platform, options);
  ASSIGN_OR_RETURN(std::unique_ptr<se::StreamExecutor> executor,
                   CreateExecutor(platform, options));
  ASSIGN_OR_RETURN(CompiledProgram program,
                   CompileHloFile(flags.hlo, executor.get(), options));
  ASSIGN_OR_RETURN(std::vector<Literal> inputs,
                   ReadArguments(flags.inputs, program.layout));
  ASSIGN_OR_RETURN(std::unique_ptr<TrainingLoop> loop,
                   TrainingLoop::Create(program.executable.get(),
                                        program.layout, executor.get(),
                                        BatchMode::kFixed));
  RETURN_IF_ERROR(loop->SetArguments(inputs));
  RETURN_IF_ERROR(loop->Steps(flags.steps).status());
  ASSIGN_OR_RETURN(std::vector<Literal> results, loop->Results());
  RETURN_IF_ERROR(WriteOutputs(flags.outputs, results));
  std::printf("ran %lld step(s) of %s on %s: %zu outputs written to %s\n",
              static_cast<long long>(flags.steps), program.name.c_str(),
              platform->Name().c_str(), results.size(), flags.outputs.c_str());
  return absl::OkStatus();
}

}  // namespace xla_lite
