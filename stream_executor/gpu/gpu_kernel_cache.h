#ifndef STREAM_EXECUTOR_GPU_GPU_KERNEL_CACHE_H_
#define STREAM_EXECUTOR_GPU_GPU_KERNEL_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "stream_executor/device_description.h"
#include "stream_executor/gpu/gpu_backend.h"
#include "stream_executor/gpu/gpu_compiler_api.h"

namespace stream_executor::gpu {

// A compiled module image, ready for GpuApi::module_load_data.
struct GpuKernelImage {
  // Digest of everything that determines the image: compiler and version,
  // target, options and source. Names the disk cache file and keys modules.
  std::string key;
  std::string target_name;  // "sm_90", "compute_90".
  GpuCodeFormat format = GpuCodeFormat::kBinary;
  // Assembly images include their terminating NUL.
  std::shared_ptr<const std::string> bytes;
  // The cache file it was read from, empty when compiled or found in memory.
  std::string disk_path;
};

struct GpuKernelCacheStats {
  int64_t compilations = 0;  // Runs of the runtime compiler.
  int64_t memory_hits = 0;
  int64_t disk_hits = 0;
  int64_t disk_writes = 0;
};

// Compiles CUDA C with the backend's runtime compiler and caches the images,
// in memory and, when a directory is given, on disk as <dir>/<key>.<ext>.
// Disk entries are written to a temporary file and renamed into place, so
// concurrent processes sharing the directory never read a partial image.
// Thread-safe.
class GpuKernelCache {
 public:
  // `cache_dir` may be empty (memory only).
  GpuKernelCache(GpuCompilerLoader load_compiler, std::string cache_dir);

  // The image of `source` for `device`. A compile error is INVALID_ARGUMENT
  // carrying the kernel name and the compiler's full log; a missing compiler
  // library is FAILED_PRECONDITION.
  absl::StatusOr<GpuKernelImage> GetOrCompile(absl::string_view kernel_name,
                                              const std::string& source,
                                              const DeviceDescription& device);

  GpuKernelCacheStats stats() const;
  const std::string& cache_dir() const { return cache_dir_; }

 private:
  absl::StatusOr<std::string> Compile(const GpuCompilerApi& compiler,
                                      const GpuCompileTarget& target,
                                      absl::string_view kernel_name,
                                      const std::string& source);
  std::string DiskPath(const std::string& key,
                       const GpuCompileTarget& target) const;

  const GpuCompilerLoader load_compiler_;
  const std::string cache_dir_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const std::string>> images_
      ABSL_GUARDED_BY(mu_);
  GpuKernelCacheStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_KERNEL_CACHE_H_
