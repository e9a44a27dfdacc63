// The ROCm platform's collectives: RCCL (NCCL's API), loaded when first used.
#include "stream_executor/gpu/nccl_collectives.h"

namespace stream_executor::gpu {
namespace {

const bool kRegistered = [] {
  RegisterNcclCollectives("rocm", "RCCL", {"librccl.so", "librccl.so.1"});
  return true;
}();

}  // namespace
}  // namespace stream_executor::gpu
