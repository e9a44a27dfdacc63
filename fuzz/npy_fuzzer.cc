// libFuzzer target: the .npy reader. Every input is an array or an error;
// an array written back and read again is the same array.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "base/host_memory.h"
#include "xla_lite/hlo/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static bool limited = (base::SetHostAllocationLimit(int64_t{64} << 20), true);
  (void)limited;
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool bf16 : {false, true}) {
    auto literal = bf16 ? xla_lite::ParseNpyWithBF16(bytes, "<fuzz>")
                        : xla_lite::ParseNpy(bytes, "<fuzz>");
    if (!literal.ok()) continue;
    std::string written = xla_lite::SerializeNpy(*literal);
    auto reread = bf16 ? xla_lite::ParseNpyWithBF16(written, "<rewritten>")
                       : xla_lite::ParseNpy(written, "<rewritten>");
    if (!reread.ok() || reread->shape() != literal->shape() ||
        reread->bytes() != literal->bytes()) {
      std::abort();  // the writer and the reader disagree
    }
  }
  return 0;
}
