#ifndef STREAM_EXECUTOR_GPU_NCCL_API_H_
#define STREAM_EXECUTOR_GPU_NCCL_API_H_

// NCCL's C API as a table of entry points, filled by dlopen at run time so
// that binaries start without libnccl.so.2 / librccl.so. RCCL keeps NCCL's
// ABI, so one table serves both. Only the declarations used here are
// repeated (no vendor header is needed to build).

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace stream_executor::gpu {

using ncclComm_t = struct ncclComm*;
using ncclResult_t = int;
constexpr ncclResult_t kNcclSuccess = 0;
constexpr ncclResult_t kNcclInProgress = 7;
struct ncclUniqueId {
  char internal[128];
};
// ncclDataType_t and ncclRedOp_t values.
enum NcclDataType : int {
  kNcclInt32 = 2,
  kNcclUint32 = 3,
  kNcclInt64 = 4,
  kNcclFloat16 = 6,
  kNcclFloat32 = 7,
  kNcclFloat64 = 8,
  kNcclBfloat16 = 9,
};
enum NcclRedOp : int { kNcclSum = 0, kNcclProd = 1, kNcclMax = 2, kNcclMin = 3 };

// The entry points; the stream is the platform's cudaStream_t /
// hipStream_t (Stream::platform_specific_handle()).
struct NcclApi {
  std::string library;  // "NCCL" or "RCCL", for messages
  ncclResult_t (*GetVersion)(int* version) = nullptr;
  const char* (*GetErrorString)(ncclResult_t result) = nullptr;
  ncclResult_t (*GetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*CommInitRank)(ncclComm_t* comm, int nranks, ncclUniqueId id,
                               int rank) = nullptr;
  ncclResult_t (*CommInitAll)(ncclComm_t* comms, int ndev,
                              const int* devlist) = nullptr;
  ncclResult_t (*CommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*CommAbort)(ncclComm_t comm) = nullptr;
  ncclResult_t (*CommGetAsyncError)(ncclComm_t comm,
                                    ncclResult_t* async_error) = nullptr;
  ncclResult_t (*AllReduce)(const void* send, void* recv, size_t count,
                            int type, int op, ncclComm_t comm,
                            void* stream) = nullptr;
  ncclResult_t (*AllGather)(const void* send, void* recv, size_t send_count,
                            int type, ncclComm_t comm, void* stream) = nullptr;
  ncclResult_t (*ReduceScatter)(const void* send, void* recv,
                                size_t recv_count, int type, int op,
                                ncclComm_t comm, void* stream) = nullptr;
  ncclResult_t (*Send)(const void* send, size_t count, int type, int peer,
                       ncclComm_t comm, void* stream) = nullptr;
  ncclResult_t (*Recv)(void* recv, size_t count, int type, int peer,
                       ncclComm_t comm, void* stream) = nullptr;
  ncclResult_t (*GroupStart)() = nullptr;
  ncclResult_t (*GroupEnd)() = nullptr;

  // OK, or INTERNAL "<library> <what>: <error string>".
  absl::Status Check(ncclResult_t result, const char* what) const;
};

// Loads the first of `sonames` that opens (e.g. {"libnccl.so.2"}) and
// resolves every entry point, once per library; FAILED_PRECONDITION naming
// the library when it is missing, so a binary without it still runs
// everything but collectives on several GPUs.
absl::StatusOr<const NcclApi*> LoadNcclApi(const std::string& library,
                                           const std::vector<std::string>& sonames);

}  // namespace stream_executor::gpu

#endif  // STREAM_EXECUTOR_GPU_NCCL_API_H_
