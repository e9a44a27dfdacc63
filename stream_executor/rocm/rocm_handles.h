#ifndef STREAM_EXECUTOR_ROCM_ROCM_HANDLES_H_
#define STREAM_EXECUTOR_ROCM_ROCM_HANDLES_H_

// The GPU tables' handles (GpuStreamHandle, GpuProgramHandle, ...) and ROCm's
// (hipStream_t, hiprtcProgram, hipblasHandle_t) are all pointers to opaque
// types, converted with reinterpret_cast. These helpers do the conversions
// for calls that return a handle through a pointer, so that each wrapper
// states only the ROCm call.

namespace stream_executor::rocm {

// Runs `call` on a null `Native` handle and stores what it produced in
// `*out`: for create-style calls. Returns what `call` returned.
template <typename Native, typename Opaque, typename Call>
auto CreateHandle(Opaque* out, Call call) {
  Native native = nullptr;
  auto result = call(&native);
  *out = reinterpret_cast<Opaque>(native);
  return result;
}

// Like CreateHandle, starting from the handle in `*out`: for calls that take
// a handle by pointer and reset it (hiprtcDestroyProgram).
template <typename Native, typename Opaque, typename Call>
auto UpdateHandle(Opaque* handle, Call call) {
  Native native = reinterpret_cast<Native>(*handle);
  auto result = call(&native);
  *handle = reinterpret_cast<Opaque>(native);
  return result;
}

}  // namespace stream_executor::rocm

#endif  // STREAM_EXECUTOR_ROCM_ROCM_HANDLES_H_
