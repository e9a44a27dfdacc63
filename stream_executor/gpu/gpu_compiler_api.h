#ifndef STREAM_EXECUTOR_GPU_GPU_COMPILER_API_H_
#define STREAM_EXECUTOR_GPU_GPU_COMPILER_API_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "stream_executor/device_description.h"

namespace stream_executor::gpu {

using GpuProgramHandle = struct GpuProgramOpaque*;

// What a compilation produces: a binary the driver loads as is (CUBIN, an AMD
// code object) or assembly it must finish compiling (PTX).
enum class GpuCodeFormat { kBinary, kAssembly };

// How to compile for one device, as the backend decides it.
struct GpuCompileTarget {
  std::vector<std::string> options;
  GpuCodeFormat format = GpuCodeFormat::kBinary;
  // What the image is for, in messages and the cache file name's extension:
  // "sm_90", "compute_90", "gfx90a".
  std::string target_name;
  std::string file_extension;  // "cubin", "ptx", "hsaco".
};

// A runtime compiler for CUDA C: NVRTC or hiprtc. Error codes are 0 for
// success, anything else is described by error_string. Like GpuApi, a plain
// table a backend fills from dlsym.
struct GpuCompilerApi {
  // "NVRTC", "hiprtc": used in messages.
  const char* display_name;

  const char* (*error_string)(int error);
  int (*version)(int* major, int* minor);

  int (*create_program)(GpuProgramHandle* program, const char* source,
                        const char* name);
  int (*compile_program)(GpuProgramHandle program, int num_options,
                         const char* const* options);
  // The log size includes the terminating NUL.
  int (*get_log_size)(GpuProgramHandle program, size_t* size);
  int (*get_log)(GpuProgramHandle program, char* log);
  int (*get_code_size)(GpuProgramHandle program, GpuCodeFormat format,
                       size_t* size);
  int (*get_code)(GpuProgramHandle program, GpuCodeFormat format, char* code);
  int (*destroy_program)(GpuProgramHandle* program);

  // Backend policy: the options, output format and target for `device`
  // (e.g. CUBIN for an architecture the compiler knows, PTX otherwise).
  absl::StatusOr<GpuCompileTarget> (*select_target)(
      const DeviceDescription& device);
};

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_GPU_COMPILER_API_H_
