#include "xla_lite/tools/bench_isolation.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "xla_lite/tools/bench_report.h"

extern char** environ;

namespace xla_lite {
namespace {

// Starts `argv` and waits for it; OK only for a zero exit.
absl::Status SpawnAndWait(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) {
    pointers.push_back(const_cast<char*>(arg.c_str()));
  }
  pointers.push_back(nullptr);
  // The child writes to the same stdout: what is buffered goes first.
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = 0;
  int error = posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr,
                          pointers.data(), environ);
  if (error != 0) {
    return absl::ErrnoToStatus(error, absl::StrCat("cannot start ", argv[0]));
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

}  // namespace

absl::StatusOr<BenchResult> RunBenchChild(
    const std::vector<std::string>& command, const std::string& model,
    const std::string& mode, const std::string& scratch_dir) {
  if (command.empty()) {
    return absl::InvalidArgumentError("no command to run a bench child with");
  }
  std::vector<std::string> argv = command;
  argv.insert(argv.end(),
              {absl::StrCat("--models=", model), absl::StrCat("--modes=", mode),
               absl::StrCat("--out=", scratch_dir), "--isolate_modes=false",
               "--bench_child", "--peers=", "--baseline="});
  auto failed = [&](const absl::Status& status) {
    return absl::Status(status.code(),
                        absl::StrCat(model, "/", mode, " in a process of its "
                                     "own: ", status.message()));
  };
  if (absl::Status status = SpawnAndWait(argv); !status.ok()) {
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

}  // namespace xla_lite
