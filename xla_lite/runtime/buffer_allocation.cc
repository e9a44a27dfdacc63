#include "xla_lite/runtime/buffer_allocation.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "glog/logging.h"

namespace xla_lite::gpu {

BufferAllocation BufferAllocation::Parameter(Index index, int64_t size,
                                             int64_t parameter_number) {
  CHECK_GE(parameter_number, 0);
  BufferAllocation allocation(index, size, kParameterAlignment,
                              Kind::kParameter);
  allocation.parameter_number_ = parameter_number;
  return allocation;
}

BufferAllocation BufferAllocation::Constant(Index index,
                                            std::vector<uint8_t> bytes) {
  BufferAllocation allocation(index, bytes.size(), kDefaultAlignment,
                              Kind::kConstant);
  allocation.constant_bytes_ = std::move(bytes);
  return allocation;
}

BufferAllocation BufferAllocation::Temp(Index index, int64_t size) {
  return BufferAllocation(index, size, kDefaultAlignment, Kind::kTemp);
}

BufferAllocation BufferAllocation::Output(Index index, int64_t size) {
  return BufferAllocation(index, size, kDefaultAlignment, Kind::kOutput);
}

int64_t BufferAllocation::parameter_number() const {
  CHECK(is_entry_parameter()) << ToString();
  return parameter_number_;
}

absl::Span<const uint8_t> BufferAllocation::constant_bytes() const {
  CHECK(is_constant()) << ToString();
  return constant_bytes_;
}

std::string BufferAllocation::ToString() const {
  std::string s = absl::StrFormat("allocation %d (%s, %d bytes", index_,
                                  BufferAllocationKindName(kind_), size_);
  if (is_entry_parameter()) {
    absl::StrAppendFormat(&s, ", parameter %d", parameter_number_);
  }
  return s + ")";
}

BufferAllocation::Slice::Slice(const BufferAllocation& allocation,
                               int64_t offset, int64_t size)
    : index_(allocation.index()), offset_(offset), size_(size) {
  CHECK(offset >= 0 && size >= 0 && offset + size <= allocation.size())
      << "slice [" << offset << ", " << offset + size << ") is outside "
      << allocation.ToString();
}

bool BufferAllocation::Slice::OverlapsWith(const Slice& other) const {
  if (index_ != other.index_ || size_ == 0 || other.size_ == 0) return false;
  return std::max(offset_, other.offset_) <
         std::min(offset_ + size_, other.offset_ + other.size_);
}

std::string BufferAllocation::Slice::ToString() const {
  return absl::StrFormat("{allocation %d, offset %d, size %d}", index_,
                         offset_, size_);
}

const char* BufferAllocationKindName(BufferAllocation::Kind kind) {
  switch (kind) {
    case BufferAllocation::Kind::kParameter:
      return "parameter";
    case BufferAllocation::Kind::kConstant:
      return "constant";
    case BufferAllocation::Kind::kTemp:
      return "temp";
    case BufferAllocation::Kind::kOutput:
      return "output";
  }
  return "invalid";
}

}  // namespace xla_lite::gpu
