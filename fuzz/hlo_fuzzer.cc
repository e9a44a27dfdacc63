// libFuzzer target: HLO text through the parser, the verifier and the
// compiler for the host platform. Any input must end in a module or an
// error status: no crash, no sanitizer report, no unbounded time or memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "base/host_memory.h"
#include "stream_executor/platform_manager.h"
#include "xla_lite/debug_options_flags.h"
#include "xla_lite/hlo/hlo_parser.h"
#include "xla_lite/service/compiler.h"

namespace {

// Small, so that a huge but valid shape ends in RESOURCE_EXHAUSTED and not
// in the fuzzer's out-of-memory report.
constexpr int64_t kHostMemoryLimit = int64_t{64} << 20;

stream_executor::StreamExecutor* HostExecutor() {
  static stream_executor::StreamExecutor* executor = [] {
    base::SetHostAllocationLimit(kHostMemoryLimit);
    auto platform = stream_executor::PlatformManager::PlatformWithName("host");
    return platform.ok() ? (*platform)->ExecutorForDevice(0).value_or(nullptr)
                         : nullptr;
  }();
  return executor;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const xla_lite::DebugOptions* options = [] {
    auto* o = new xla_lite::DebugOptions(xla_lite::DefaultDebugOptions());
    o->set_xla_gpu_host_memory_limit_bytes(kHostMemoryLimit);
    return o;
  }();
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = xla_lite::ParseHloModule(text, "<fuzz>");
  if (!module.ok()) return 0;
  auto executable =
      xla_lite::Compile(*std::move(module), HostExecutor(), *options);
  (void)executable;
  return 0;
}
