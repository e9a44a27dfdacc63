#ifndef STREAM_EXECUTOR_DEVICE_DESCRIPTION_H_
#define STREAM_EXECUTOR_DEVICE_DESCRIPTION_H_

#include <cstdint>
#include <string>

namespace stream_executor {

// What the runtime and kernel compilers need to know about one device.
struct DeviceDescription {
  std::string name;           // "NVIDIA H100 80GB HBM3", "host".
  std::string arch;           // "sm_90", "gfx90a", "host": the compile target.
  int compute_major = 0;      // CUDA compute capability; 0 elsewhere.
  int compute_minor = 0;
  int64_t memory_bytes = 0;   // Total device memory (0 when unlimited).
  int core_count = 0;         // Multiprocessors / CUs / host threads.
  std::string runtime_version;
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_DEVICE_DESCRIPTION_H_
