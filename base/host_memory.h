#ifndef BASE_HOST_MEMORY_H_
#define BASE_HOST_MEMORY_H_

// A bound on single host allocations whose size comes from the input (an
// argument, a result read back, a constant). Past it the caller returns
// RESOURCE_EXHAUSTED, as the device allocator does when device memory runs
// out, rather than letting operator new throw std::bad_alloc, which
// nothing here catches and which aborts the process.

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace base {

// The machine's physical memory, unless SetHostAllocationLimit lowered it.
int64_t HostAllocationLimit();
// For processes that must stay small (fuzz targets, tests); 0 restores the
// default.
void SetHostAllocationLimit(int64_t bytes);

// RESOURCE_EXHAUSTED naming `what` when `bytes` exceeds the limit.
absl::Status CheckHostAllocation(int64_t bytes, absl::string_view what);

}  // namespace base

#endif  // BASE_HOST_MEMORY_H_
