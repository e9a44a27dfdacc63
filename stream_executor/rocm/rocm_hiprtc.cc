#include "stream_executor/rocm/rocm_hiprtc.h"

#include <iterator>
#include <string>

#include "absl/base/attributes.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "hip/hiprtc.h"
#include "stream_executor/rocm/rocm_handles.h"
#include "stream_executor/rocm/rocm_library.h"

namespace stream_executor::rocm {
namespace {

using gpu::GpuCodeFormat;
using gpu::GpuProgramHandle;

constexpr char kDisplayName[] = "hiprtc";
// Options for every target. HIP contracts a*x + y into one fused multiply-add
// by default; without contraction it rounds twice, as on the host platform,
// so GPU and host kernels agree bit for bit on f32.
constexpr const char* kCompileOptions[] = {"-O3", "-std=c++17",
                                           "-ffp-contract=off"};
constexpr const char* kHiprtcSonames[] = {"libhiprtc.so", "libhiprtc.so.5",
                                          "libhiprtc.so.6"};

struct HiprtcFunctions {
  decltype(&::hiprtcGetErrorString) get_error_string = nullptr;
  decltype(&::hiprtcVersion) version = nullptr;
  decltype(&::hiprtcCreateProgram) create_program = nullptr;
  decltype(&::hiprtcCompileProgram) compile_program = nullptr;
  decltype(&::hiprtcGetProgramLogSize) get_program_log_size = nullptr;
  decltype(&::hiprtcGetProgramLog) get_program_log = nullptr;
  decltype(&::hiprtcGetCodeSize) get_code_size = nullptr;
  decltype(&::hiprtcGetCode) get_code = nullptr;
  decltype(&::hiprtcDestroyProgram) destroy_program = nullptr;
  // Only where hiprtc lives in the HIP runtime (ROCm 5.2 and earlier), whose
  // hiprtcVersion answers 0.0; see Version.
  int (*runtime_get_version)(int* version) = nullptr;
};

// Filled once by Load, before the table that calls it is handed out.
ABSL_CONST_INIT HiprtcFunctions hiprtc;

hiprtcProgram ToHiprtc(GpuProgramHandle program) {
  return reinterpret_cast<hiprtcProgram>(program);
}

const char* ErrorString(int error) {
  return hiprtc.get_error_string(static_cast<hiprtcResult>(error));
}

// The version keys the kernel cache, so that a ROCm upgrade compiles afresh.
// hiprtc inside the HIP 5.2 runtime reports 0.0; the runtime's own version
// (major * 10^7 + minor * 10^5 + patch) stands in.
int Version(int* major, int* minor) {
  hiprtcResult result = hiprtc.version(major, minor);
  int runtime = 0;
  if (result == HIPRTC_SUCCESS && *major == 0 && *minor == 0 &&
      hiprtc.runtime_get_version != nullptr &&
      hiprtc.runtime_get_version(&runtime) == 0) {
    *major = runtime / 10000000;
    *minor = (runtime / 100000) % 100;
  }
  return result;
}

int CreateProgram(GpuProgramHandle* program, const char* source,
                  const char* name) {
  return CreateHandle<hiprtcProgram>(program, [&](hiprtcProgram* native) {
    return hiprtc.create_program(native, source, name, /*numHeaders=*/0,
                                 /*headers=*/nullptr,
                                 /*includeNames=*/nullptr);
  });
}

int CompileProgram(GpuProgramHandle program, int num_options,
                   const char* const* options) {
  // hiprtc's prototype lacks the inner const but does not write the array.
  return hiprtc.compile_program(ToHiprtc(program), num_options,
                                const_cast<const char**>(options));
}

int GetLogSize(GpuProgramHandle program, size_t* size) {
  return hiprtc.get_program_log_size(ToHiprtc(program), size);
}

int GetLog(GpuProgramHandle program, char* log) {
  return hiprtc.get_program_log(ToHiprtc(program), log);
}

// hiprtc only produces code objects; SelectTarget never asks for assembly.
int GetCodeSize(GpuProgramHandle program, GpuCodeFormat format, size_t* size) {
  if (format != GpuCodeFormat::kBinary) return HIPRTC_ERROR_INVALID_INPUT;
  return hiprtc.get_code_size(ToHiprtc(program), size);
}

int GetCode(GpuProgramHandle program, GpuCodeFormat format, char* code) {
  if (format != GpuCodeFormat::kBinary) return HIPRTC_ERROR_INVALID_INPUT;
  return hiprtc.get_code(ToHiprtc(program), code);
}

int DestroyProgram(GpuProgramHandle* program) {
  return UpdateHandle<hiprtcProgram>(program, [](hiprtcProgram* native) {
    return hiprtc.destroy_program(native);
  });
}

// "gfx90a", "gfx942", "gfx1100": a processor without feature settings.
bool IsAmdGpuProcessor(absl::string_view arch) {
  if (!absl::ConsumePrefix(&arch, "gfx") || arch.empty()) return false;
  for (char c : arch) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

absl::StatusOr<gpu::GpuCompileTarget> SelectTarget(
    const DeviceDescription& device) {
  if (!IsAmdGpuProcessor(device.arch)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "hiprtc compiles for AMD GPU processors such as gfx90a; device ",
        device.name, " has arch '", device.arch, "'"));
  }
  gpu::GpuCompileTarget target;
  target.target_name = device.arch;
  target.format = GpuCodeFormat::kBinary;
  target.file_extension = "hsaco";
  // The clang spelling: hiprtc 5.x also takes NVRTC's --gpu-architecture,
  // but warns that it translates it.
  target.options = {absl::StrCat("--offload-arch=", device.arch)};
  target.options.insert(target.options.end(), std::begin(kCompileOptions),
                        std::end(kCompileOptions));
  return target;
}

// ROCm 5.3 and later ship hiprtc as its own library; before, it is part of
// the HIP runtime.
absl::StatusOr<RocmLibrary> OpenHiprtc() {
  absl::StatusOr<RocmLibrary> library =
      RocmLibrary::Open(kDisplayName, kHiprtcSonames);
  if (library.ok()) return library;
  absl::StatusOr<RocmLibrary> runtime =
      RocmLibrary::Open(kDisplayName, kHipRuntimeSonames);
  if (runtime.ok()) return runtime;
  return absl::FailedPreconditionError(absl::StrCat(
      library.status().message(), "; ", runtime.status().message()));
}

absl::StatusOr<const gpu::GpuCompilerApi*> Load() {
  ASSIGN_OR_RETURN(RocmLibrary library, OpenHiprtc());
  HiprtcFunctions& f = hiprtc;
  RETURN_IF_ERROR(library.Resolve("hiprtcGetErrorString", &f.get_error_string));
  RETURN_IF_ERROR(library.Resolve("hiprtcVersion", &f.version));
  RETURN_IF_ERROR(library.Resolve("hiprtcCreateProgram", &f.create_program));
  RETURN_IF_ERROR(library.Resolve("hiprtcCompileProgram", &f.compile_program));
  RETURN_IF_ERROR(
      library.Resolve("hiprtcGetProgramLogSize", &f.get_program_log_size));
  RETURN_IF_ERROR(library.Resolve("hiprtcGetProgramLog", &f.get_program_log));
  RETURN_IF_ERROR(library.Resolve("hiprtcGetCodeSize", &f.get_code_size));
  RETURN_IF_ERROR(library.Resolve("hiprtcGetCode", &f.get_code));
  RETURN_IF_ERROR(library.Resolve("hiprtcDestroyProgram", &f.destroy_program));
  library.ResolveOptional("hipRuntimeGetVersion", &f.runtime_get_version);

  static const gpu::GpuCompilerApi* api = [] {
    auto* api = new gpu::GpuCompilerApi{};
    api->display_name = kDisplayName;
    api->error_string = &ErrorString;
    api->version = &Version;
    api->create_program = &CreateProgram;
    api->compile_program = &CompileProgram;
    api->get_log_size = &GetLogSize;
    api->get_log = &GetLog;
    api->get_code_size = &GetCodeSize;
    api->get_code = &GetCode;
    api->destroy_program = &DestroyProgram;
    api->select_target = &SelectTarget;
    return api;
  }();
  int major = 0, minor = 0;
  Version(&major, &minor);
  VLOG(1) << "Loaded hiprtc " << major << "." << minor;
  return api;
}

}  // namespace

absl::StatusOr<const gpu::GpuCompilerApi*> LoadHiprtcApi() {
  return LoadOnce<&Load>();
}

}  // namespace stream_executor::rocm
