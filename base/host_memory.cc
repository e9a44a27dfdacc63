#include "base/host_memory.h"

#include <unistd.h>

#include <atomic>

#include "absl/strings/str_format.h"

namespace base {
namespace {

std::atomic<int64_t> limit_override{0};

int64_t PhysicalMemory() {
  static const int64_t bytes = [] {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return int64_t{1} << 40;
    return static_cast<int64_t>(pages) * page_size;
  }();
  return bytes;
}

}  // namespace

int64_t HostAllocationLimit() {
  int64_t limit = limit_override.load(std::memory_order_relaxed);
  return limit > 0 ? limit : PhysicalMemory();
}

void SetHostAllocationLimit(int64_t bytes) {
  limit_override.store(bytes > 0 ? bytes : 0, std::memory_order_relaxed);
}

absl::Status CheckHostAllocation(int64_t bytes, absl::string_view what) {
  const int64_t limit = HostAllocationLimit();
  if (bytes <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrFormat(
      "%s needs %d bytes of host memory, more than the %d bytes available "
      "to one allocation",
      what, bytes, limit));
}

}  // namespace base
