#include "xla_lite/tools/bench_isolation.h"

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "xla_lite/tools/bench_report.h"

extern char** environ;

namespace xla_lite {
namespace {

// Starts `program` with `argv` and waits for it; OK only for a zero exit.
absl::Status SpawnAndWait(const std::string& program,
                          const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) {
    pointers.push_back(const_cast<char*>(arg.c_str()));
  }
  pointers.push_back(nullptr);
  // The child writes to the same stdout: what is buffered goes first.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  int error = posix_spawn(&pid, program.c_str(), nullptr, nullptr,
                          pointers.data(), environ);
  if (error != 0) {
    return absl::ErrnoToStatus(error, absl::StrCat("cannot start ", program));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::ErrnoToStatus(errno, absl::StrCat("waiting for ", pid));
    }
  }
  if (WIFSIGNALED(status)) {
    return absl::InternalError(
        absl::StrCat("killed by signal ", WTERMSIG(status)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat("exited with status ", WEXITSTATUS(status)));
  }
  return absl::OkStatus();
}

// A scratch folder for the children's results.
absl::StatusOr<std::string> MakeScratch(const std::string& out) {
  std::string parent = out;
  if (parent.empty()) {
    std::error_code error;
    parent = std::filesystem::temp_directory_path(error).string();
    if (error) {
      return absl::InternalError(
          absl::StrCat("no temporary directory: ", error.message()));
    }
  }
  std::string pattern = absl::StrCat(parent, "/bench_processes.XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::ErrnoToStatus(errno, absl::StrCat("mkdtemp ", pattern));
  }
  return pattern;
}

// One model and mode in a child; its bench.json.
absl::StatusOr<BenchResult> RunBenchChild(const BenchChildCommand& command,
                                          const std::string& platform,
                                          const std::string& model,
                                          const std::string& mode,
                                          const std::string& scratch_dir) {
  if (command.program.empty() || command.argv.empty()) {
    return absl::InvalidArgumentError("no command to run a bench child with");
  }
  std::vector<std::string> argv = command.argv;
  // After `--` every argument is positional: ours go before it.
  auto end = std::find(argv.begin() + 1, argv.end(), "--");
  argv.insert(end, {absl::StrCat("--models=", model),
                    absl::StrCat("--modes=", mode),
                    absl::StrCat("--out=", scratch_dir),
                    absl::StrCat("--platform=", platform),
                    "--isolate_modes=false", "--bench_child", "--peers=",
                    "--baseline="});
  auto failed = [&](const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(model, "/", mode, " in a process of its "
                                     "own: ", status.message()));
  };
  if (absl::Status status = SpawnAndWait(command.program, argv);
      !status.ok()) {
    return failed(status);
  }
  absl::StatusOr<BenchResult> result =
      ReadBenchResult(absl::StrCat(scratch_dir, "/bench.json"));
  if (!result.ok()) return failed(result.status());
  if (result->models_size() != 1 || result->models(0).modes_size() != 1) {
    return failed(absl::InternalError(absl::StrCat(
        "expected one model with one mode, got ", result->models_size(),
        " models")));
  }
  return result;
}

}  // namespace

absl::Status RunIsolated(const BenchChildCommand& command,
                         const std::string& platform,
                         const std::string& models,
                         const std::vector<std::string>& modes,
                         const std::string& out, BenchResult& result) {
  ASSIGN_OR_RETURN(const std::string scratch, MakeScratch(out));
  absl::Status status = absl::OkStatus();
  int64_t run = 0;
  for (absl::string_view path : absl::StrSplit(models, ',')) {
    BenchModel* model = nullptr;
    for (const std::string& mode : modes) {
      std::printf("bench: %s, %s, in a process of its own\n",
                  std::string(path).c_str(), mode.c_str());
      absl::StatusOr<BenchResult> child =
          RunBenchChild(command, platform, std::string(path), mode,
                        absl::StrCat(scratch, "/", run++));
      if (!child.ok()) {
        status = child.status();
        break;
      }
      if (model == nullptr) {
        result.set_platform(child->platform());
        result.set_device(child->device());
        result.set_runtime_version(child->runtime_version());
        model = result.add_models();
        *model = child->models(0);
        continue;
      }
      *model->add_modes() = child->models(0).modes(0);
    }
    if (!status.ok()) break;
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return status;
}

}  // namespace xla_lite
