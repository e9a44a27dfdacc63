#ifndef TESTS_RUNTIME_COMPILER_TEST_UTIL_H_
#define TESTS_RUNTIME_COMPILER_TEST_UTIL_H_

// Emitted CUDA C through the GPU runtime compilers, which run on the host
// without a device, with the options the platforms use.

#include <vector>

#include "stream_executor/kernel.h"

namespace xla_lite::testing {

// Compiles every spec's source with NVRTC for an H100 (sm_90). Skips the
// test when built without --config=cuda, or when NVRTC cannot be loaded and
// the CUDA platform is not required (XLA_LITE_TEST_REQUIRE_PLATFORM).
void ExpectNvrtcCompiles(const std::vector<stream_executor::KernelSpec>& specs);

// The same with hiprtc for gfx90a (MI200) and gfx908 (MI100); hiprtc 5.2
// crashes on processors its comgr does not know (docs/rocm.md), so no
// newer ones. Skips without --config=rocm.
void ExpectHiprtcCompiles(const std::vector<stream_executor::KernelSpec>& specs);

}  // namespace xla_lite::testing

#endif  // TESTS_RUNTIME_COMPILER_TEST_UTIL_H_
