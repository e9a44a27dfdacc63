#include "stream_executor/stream_executor.h"

#include "base/status_macros.h"
#include "glog/logging.h"

namespace stream_executor {

StreamExecutor::~StreamExecutor() {
  CHECK_EQ(stream_pool_.idle_streams(), 0)
      << "a platform's executor must call ClearStreamPool in its destructor";
}

absl::Status StreamExecutor::SynchronousMemcpyH2D(const void* host_src,
                                                  uint64_t size,
                                                  DeviceAddressBase* dst) {
  ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, CreateStream());
  RETURN_IF_ERROR(stream->Memcpy(dst, host_src, size));
  return stream->BlockHostUntilDone();
}

absl::Status StreamExecutor::SynchronousMemcpyD2H(const DeviceAddressBase& src,
                                                  uint64_t size,
                                                  void* host_dst) {
  ASSIGN_OR_RETURN(std::unique_ptr<Stream> stream, CreateStream());
  RETURN_IF_ERROR(stream->Memcpy(host_dst, src, size));
  return stream->BlockHostUntilDone();
}

}  // namespace stream_executor
