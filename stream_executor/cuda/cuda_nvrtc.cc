#include "stream_executor/cuda/cuda_nvrtc.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "glog/logging.h"
#include "nvrtc.h"
#include "stream_executor/gpu/dso_loader.h"

namespace stream_executor::cuda {
namespace {

using gpu::GpuCodeFormat;
using gpu::GpuProgramHandle;

constexpr char kDisplayName[] = "NVRTC";
constexpr char kSoname[] = "libnvrtc.so.13";

struct NvrtcFunctions {
  decltype(&::nvrtcGetErrorString) get_error_string = nullptr;
  decltype(&::nvrtcVersion) version = nullptr;
  decltype(&::nvrtcGetNumSupportedArchs) get_num_supported_archs = nullptr;
  decltype(&::nvrtcGetSupportedArchs) get_supported_archs = nullptr;
  decltype(&::nvrtcCreateProgram) create_program = nullptr;
  decltype(&::nvrtcCompileProgram) compile_program = nullptr;
  decltype(&::nvrtcGetProgramLogSize) get_program_log_size = nullptr;
  decltype(&::nvrtcGetProgramLog) get_program_log = nullptr;
  decltype(&::nvrtcGetCUBINSize) get_cubin_size = nullptr;
  decltype(&::nvrtcGetCUBIN) get_cubin = nullptr;
  decltype(&::nvrtcGetPTXSize) get_ptx_size = nullptr;
  decltype(&::nvrtcGetPTX) get_ptx = nullptr;
  decltype(&::nvrtcDestroyProgram) destroy_program = nullptr;
};

NvrtcFunctions& Nvrtc() {
  static NvrtcFunctions* functions = new NvrtcFunctions;
  return *functions;
}

nvrtcProgram ToNvrtc(GpuProgramHandle program) {
  return reinterpret_cast<nvrtcProgram>(program);
}

const char* ErrorString(int error) {
  return Nvrtc().get_error_string(static_cast<nvrtcResult>(error));
}

int Version(int* major, int* minor) { return Nvrtc().version(major, minor); }

int CreateProgram(GpuProgramHandle* program, const char* source,
                  const char* name) {
  nvrtcProgram nvrtc_program = nullptr;
  nvrtcResult result = Nvrtc().create_program(&nvrtc_program, source, name,
                                              /*numHeaders=*/0,
                                              /*headers=*/nullptr,
                                              /*includeNames=*/nullptr);
  *program = reinterpret_cast<GpuProgramHandle>(nvrtc_program);
  return result;
}

int CompileProgram(GpuProgramHandle program, int num_options,
                   const char* const* options) {
  return Nvrtc().compile_program(ToNvrtc(program), num_options, options);
}

int GetLogSize(GpuProgramHandle program, size_t* size) {
  return Nvrtc().get_program_log_size(ToNvrtc(program), size);
}

int GetLog(GpuProgramHandle program, char* log) {
  return Nvrtc().get_program_log(ToNvrtc(program), log);
}

int GetCodeSize(GpuProgramHandle program, GpuCodeFormat format, size_t* size) {
  return format == GpuCodeFormat::kBinary
             ? Nvrtc().get_cubin_size(ToNvrtc(program), size)
             : Nvrtc().get_ptx_size(ToNvrtc(program), size);
}

int GetCode(GpuProgramHandle program, GpuCodeFormat format, char* code) {
  return format == GpuCodeFormat::kBinary
             ? Nvrtc().get_cubin(ToNvrtc(program), code)
             : Nvrtc().get_ptx(ToNvrtc(program), code);
}

int DestroyProgram(GpuProgramHandle* program) {
  nvrtcProgram nvrtc_program = ToNvrtc(*program);
  nvrtcResult result = Nvrtc().destroy_program(&nvrtc_program);
  *program = reinterpret_cast<GpuProgramHandle>(nvrtc_program);
  return result;
}

absl::StatusOr<std::vector<int>> SupportedArchs() {
  int count = 0;
  nvrtcResult result = Nvrtc().get_num_supported_archs(&count);
  std::vector<int> archs(count > 0 ? count : 0);
  if (result == NVRTC_SUCCESS && count > 0) {
    result = Nvrtc().get_supported_archs(archs.data());
  }
  if (result != NVRTC_SUCCESS) {
    return absl::InternalError(absl::StrCat(
        "NVRTC supported architecture query failed: ", ErrorString(result)));
  }
  std::sort(archs.begin(), archs.end());
  return archs;
}

absl::StatusOr<gpu::GpuCompileTarget> SelectTarget(
    const DeviceDescription& device) {
  ASSIGN_OR_RETURN(std::vector<int> archs, SupportedArchs());
  int capability = device.compute_major * 10 + device.compute_minor;
  gpu::GpuCompileTarget target;
  if (std::binary_search(archs.begin(), archs.end(), capability)) {
    target.target_name = absl::StrCat("sm_", capability);
    target.format = GpuCodeFormat::kBinary;
    target.file_extension = "cubin";
  } else {
    // PTX for an older virtual architecture runs on newer devices: the
    // driver compiles it for the device when the module is loaded.
    auto newest_below =
        std::upper_bound(archs.begin(), archs.end(), capability);
    if (newest_below == archs.begin()) {
      return absl::FailedPreconditionError(
          absl::StrCat("NVRTC supports none of the architectures up to sm_",
                       capability, " of device ", device.name, "; it supports ",
                       absl::StrJoin(archs, ", ")));
    }
    int fallback = *std::prev(newest_below);
    VLOG(1) << "NVRTC does not know sm_" << capability << "; compiling PTX for "
            << "compute_" << fallback;
    target.target_name = absl::StrCat("compute_", fallback);
    target.format = GpuCodeFormat::kAssembly;
    target.file_extension = "ptx";
  }
  target.options = {
      absl::StrCat("--gpu-architecture=", target.target_name),
      "-default-device",
      "-std=c++17",
      // No multiply-add contraction: a*x + y rounds twice, as on the host,
      // so GPU and host kernels agree bit for bit on f32.
      "--fmad=false",
  };
  return target;
}

absl::StatusOr<const gpu::GpuCompilerApi*> Load() {
  ASSIGN_OR_RETURN(
      void* library,
      gpu::OpenLibrary(kDisplayName, gpu::LibraryCandidates(
                                         kSoname, {"/usr/local/cuda/lib64"})));
  NvrtcFunctions& f = Nvrtc();
  auto resolve = [&](const char* symbol, auto* out) {
    return gpu::ResolveFunction(library, kDisplayName, symbol, out);
  };
  RETURN_IF_ERROR(resolve("nvrtcGetErrorString", &f.get_error_string));
  RETURN_IF_ERROR(resolve("nvrtcVersion", &f.version));
  RETURN_IF_ERROR(
      resolve("nvrtcGetNumSupportedArchs", &f.get_num_supported_archs));
  RETURN_IF_ERROR(resolve("nvrtcGetSupportedArchs", &f.get_supported_archs));
  RETURN_IF_ERROR(resolve("nvrtcCreateProgram", &f.create_program));
  RETURN_IF_ERROR(resolve("nvrtcCompileProgram", &f.compile_program));
  RETURN_IF_ERROR(resolve("nvrtcGetProgramLogSize", &f.get_program_log_size));
  RETURN_IF_ERROR(resolve("nvrtcGetProgramLog", &f.get_program_log));
  RETURN_IF_ERROR(resolve("nvrtcGetCUBINSize", &f.get_cubin_size));
  RETURN_IF_ERROR(resolve("nvrtcGetCUBIN", &f.get_cubin));
  RETURN_IF_ERROR(resolve("nvrtcGetPTXSize", &f.get_ptx_size));
  RETURN_IF_ERROR(resolve("nvrtcGetPTX", &f.get_ptx));
  RETURN_IF_ERROR(resolve("nvrtcDestroyProgram", &f.destroy_program));

  static const gpu::GpuCompilerApi api = {
      .display_name = kDisplayName,
      .error_string = &ErrorString,
      .version = &Version,
      .create_program = &CreateProgram,
      .compile_program = &CompileProgram,
      .get_log_size = &GetLogSize,
      .get_log = &GetLog,
      .get_code_size = &GetCodeSize,
      .get_code = &GetCode,
      .destroy_program = &DestroyProgram,
      .select_target = &SelectTarget,
  };
  int major = 0, minor = 0;
  f.version(&major, &minor);
  VLOG(1) << "Loaded NVRTC " << major << "." << minor;
  return &api;
}

}  // namespace

absl::StatusOr<const gpu::GpuCompilerApi*> LoadNvrtcApi() {
  static const absl::StatusOr<const gpu::GpuCompilerApi*>* api =
      new absl::StatusOr<const gpu::GpuCompilerApi*>(Load());
  return *api;
}

}  // namespace stream_executor::cuda
