#include "stream_executor/gpu/gpu_kernel_cache.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "stream_executor/gpu/content_hash.h"

namespace stream_executor::gpu {
namespace {

// Owns a runtime-compiler program.
class ScopedProgram {
 public:
  explicit ScopedProgram(const GpuCompilerApi& api) : api_(api) {}
  ~ScopedProgram() {
    if (program_ != nullptr) api_.destroy_program(&program_);
  }
  ScopedProgram(const ScopedProgram&) = delete;
  ScopedProgram& operator=(const ScopedProgram&) = delete;

  GpuProgramHandle* out() { return &program_; }
  GpuProgramHandle get() const { return program_; }

 private:
  const GpuCompilerApi& api_;
  GpuProgramHandle program_ = nullptr;
};

absl::Status CompilerStatus(const GpuCompilerApi& api, int error,
                            absl::string_view operation) {
  if (error == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(api.display_name, " ", operation,
                                          " failed: ", api.error_string(error),
                                          " (", error, ")"));
}

std::string ProgramLog(const GpuCompilerApi& api, GpuProgramHandle program) {
  size_t size = 0;
  if (api.get_log_size(program, &size) != 0 || size <= 1) return "";
  std::string log(size, '\0');
  if (api.get_log(program, log.data()) != 0) return "";
  log.resize(size - 1);  // Drops the terminating NUL.
  return log;
}

std::string VersionString(const GpuCompilerApi& api) {
  int major = 0, minor = 0;
  if (api.version(&major, &minor) != 0) return "unknown";
  return absl::StrCat(major, ".", minor);
}

// nullopt is a cache miss: a missing or empty file, or one that cannot be
// read (said in the log, as the cache only saves time).
std::optional<std::string> ReadCachedImage(const std::string& path) {
  absl::StatusOr<std::string> bytes = base::ReadFileToString(path);
  if (!bytes.ok()) {
    if (!absl::IsNotFound(bytes.status())) {
      LOG(WARNING) << "Kernel cache: " << bytes.status();
    }
    return std::nullopt;
  }
  if (bytes->empty()) return std::nullopt;
  return *std::move(bytes);
}

}  // namespace

GpuKernelCache::GpuKernelCache(GpuCompilerLoader load_compiler,
                               std::string cache_dir)
    : load_compiler_(load_compiler), cache_dir_(std::move(cache_dir)) {}

std::string GpuKernelCache::DiskPath(const std::string& key,
                                     const GpuCompileTarget& target) const {
  return absl::StrCat(cache_dir_, "/", key, ".", target.file_extension);
}

absl::StatusOr<GpuKernelImage> GpuKernelCache::GetOrCompile(
    absl::string_view kernel_name, const std::string& source,
    const DeviceDescription& device) {
  if (load_compiler_ == nullptr) {
    return absl::FailedPreconditionError(
        "this platform has no runtime compiler for kernels");
  }
  ASSIGN_OR_RETURN(const GpuCompilerApi* compiler, load_compiler_());
  ASSIGN_OR_RETURN(GpuCompileTarget target, compiler->select_target(device));

  GpuKernelImage image;
  image.target_name = target.target_name;
  image.format = target.format;
  std::string options = absl::StrJoin(target.options, " ");
  std::string version = VersionString(*compiler);
  image.key = ContentHash({compiler->display_name, version, target.target_name,
                           target.file_extension, options, source});

  {
    absl::MutexLock lock(&mu_);
    auto it = images_.find(image.key);
    if (it != images_.end()) {
      ++stats_.memory_hits;
      image.bytes = it->second;
      VLOG(3) << "Kernel " << kernel_name << ": image " << image.key
              << " found in memory";
      return image;
    }
  }

  if (!cache_dir_.empty()) {
    std::string path = DiskPath(image.key, target);
    if (std::optional<std::string> bytes = ReadCachedImage(path)) {
      if (image.format == GpuCodeFormat::kAssembly && bytes->back() != '\0') {
        bytes->push_back('\0');
      }
      image.bytes = std::make_shared<const std::string>(*std::move(bytes));
      image.disk_path = path;
      absl::MutexLock lock(&mu_);
      ++stats_.disk_hits;
      images_.emplace(image.key, image.bytes);
      VLOG(1) << "Kernel " << kernel_name << ": loaded " << path;
      return image;
    }
  }

  // Compiled without holding the lock: compilation takes long, and two
  // threads compiling the same source only waste work.
  ASSIGN_OR_RETURN(std::string bytes,
                   Compile(*compiler, target, kernel_name, source));
  image.bytes = std::make_shared<const std::string>(std::move(bytes));

  bool written = false;
  if (!cache_dir_.empty()) {
    absl::Status status = base::CreateDirectories(cache_dir_);
    if (status.ok()) {
      status = base::WriteFileAtomically(DiskPath(image.key, target),
                                         *image.bytes);
    }
    // The disk cache only saves time: failing to fill it is not an error.
    if (status.ok()) {
      written = true;
    } else {
      LOG(WARNING) << "Kernel cache: " << status;
    }
  }

  absl::MutexLock lock(&mu_);
  ++stats_.compilations;
  if (written) ++stats_.disk_writes;
  images_.emplace(image.key, image.bytes);
  return image;
}

absl::StatusOr<std::string> GpuKernelCache::Compile(
    const GpuCompilerApi& compiler, const GpuCompileTarget& target,
    absl::string_view kernel_name, const std::string& source) {
  absl::Time start = absl::Now();
  std::string program_name = absl::StrCat(kernel_name, ".cu");
  ScopedProgram program(compiler);
  RETURN_IF_ERROR(
      CompilerStatus(compiler,
                     compiler.create_program(program.out(), source.c_str(),
                                             program_name.c_str()),
                     "create program"));

  std::vector<const char*> options;
  options.reserve(target.options.size());
  for (const std::string& option : target.options) {
    options.push_back(option.c_str());
  }
  int error = compiler.compile_program(
      program.get(), static_cast<int>(options.size()), options.data());
  std::string log = ProgramLog(compiler, program.get());
  if (error != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(compiler.display_name, " failed to compile kernel '",
                     kernel_name, "' for ", target.target_name, ": ",
                     compiler.error_string(error), "\n", log));
  }
  if (!log.empty()) {
    VLOG(1) << compiler.display_name << " log for kernel " << kernel_name
            << ":\n"
            << log;
  }

  size_t size = 0;
  RETURN_IF_ERROR(CompilerStatus(
      compiler, compiler.get_code_size(program.get(), target.format, &size),
      "get code size"));
  std::string bytes(size, '\0');
  RETURN_IF_ERROR(CompilerStatus(
      compiler, compiler.get_code(program.get(), target.format, bytes.data()),
      "get code"));
  VLOG(1) << "Compiled kernel " << kernel_name << " for " << target.target_name
          << " with " << compiler.display_name << ": " << size << " bytes in "
          << absl::FormatDuration(absl::Now() - start);
  return bytes;
}

GpuKernelCacheStats GpuKernelCache::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace stream_executor::gpu
