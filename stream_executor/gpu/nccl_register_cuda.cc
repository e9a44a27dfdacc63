// The CUDA platform's collectives: NCCL, loaded when first used.
#include "stream_executor/gpu/nccl_collectives.h"

namespace stream_executor::gpu {
namespace {

const bool kRegistered = [] {
  RegisterNcclCollectives("cuda", "NCCL", {"libnccl.so.2", "libnccl.so"});
  return true;
}();

}  // namespace
}  // namespace stream_executor::gpu
