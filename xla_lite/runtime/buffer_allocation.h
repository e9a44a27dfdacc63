#ifndef XLA_LITE_RUNTIME_BUFFER_ALLOCATION_H_
#define XLA_LITE_RUNTIME_BUFFER_ALLOCATION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"

namespace xla_lite::gpu {

// One contiguous device buffer of an executable, as buffer assignment made
// it: every value the program touches lives at some offset in exactly one
// allocation. Where its memory comes from at run time depends on the kind
// (see GpuExecutable::BufferForAllocation).
class BufferAllocation {
 public:
  using Index = int64_t;

  enum class Kind {
    // An entry computation parameter: the caller's buffer.
    kParameter,
    // Read-only data known at compile time, uploaded once per executor.
    kConstant,
    // Scratch that lives for one execution.
    kTemp,
    // A result of the entry computation; handed to the caller.
    kOutput,
  };

  // Caller-provided buffers only promise what XLA promises for entry
  // parameters; memory the runtime allocates is aligned more strictly.
  static constexpr int64_t kParameterAlignment = 16;
  static constexpr int64_t kDefaultAlignment = 64;

  static BufferAllocation Parameter(Index index, int64_t size,
                                    int64_t parameter_number);
  static BufferAllocation Constant(Index index, std::vector<uint8_t> bytes);
  static BufferAllocation Temp(Index index, int64_t size);
  static BufferAllocation Output(Index index, int64_t size);

  // A byte range [offset, offset + size) of one allocation. It names the
  // allocation by index rather than by pointer, so a slice stays valid when
  // the allocation list that owns the allocations moves.
  class Slice {
   public:
    Slice() = default;
    // CHECK-fails when the range does not lie inside `allocation`.
    Slice(const BufferAllocation& allocation, int64_t offset, int64_t size);

    Index index() const { return index_; }
    int64_t offset() const { return offset_; }
    int64_t size() const { return size_; }
    bool valid() const { return index_ >= 0; }

    // True when both slices share at least one byte. Empty slices overlap
    // nothing.
    bool OverlapsWith(const Slice& other) const;

    bool operator==(const Slice& other) const {
      return index_ == other.index_ && offset_ == other.offset_ &&
             size_ == other.size_;
    }
    bool operator!=(const Slice& other) const { return !(*this == other); }
    template <typename H>
    friend H AbslHashValue(H h, const Slice& s) {
      return H::combine(std::move(h), s.index_, s.offset_, s.size_);
    }

    std::string ToString() const;

   private:
    Index index_ = -1;
    int64_t offset_ = 0;
    int64_t size_ = 0;
  };

  Index index() const { return index_; }
  int64_t size() const { return size_; }
  int64_t alignment() const { return alignment_; }
  Kind kind() const { return kind_; }

  bool is_entry_parameter() const { return kind_ == Kind::kParameter; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  bool is_temp() const { return kind_ == Kind::kTemp; }
  // Outputs are live out by construction. A parameter becomes live out only
  // through an input_output_alias, which the executable's signature holds.
  bool maybe_live_out() const { return kind_ == Kind::kOutput; }

  // CHECK-fails unless is_entry_parameter().
  int64_t parameter_number() const;
  // CHECK-fails unless is_constant().
  absl::Span<const uint8_t> constant_bytes() const;

  // The whole allocation as one slice.
  Slice GetSlice() const { return Slice(*this, 0, size_); }
  Slice GetSlice(int64_t offset, int64_t size) const {
    return Slice(*this, offset, size);
  }

  std::string ToString() const;

 private:
  BufferAllocation(Index index, int64_t size, int64_t alignment, Kind kind)
      : index_(index), size_(size), alignment_(alignment), kind_(kind) {}

  Index index_;
  int64_t size_;
  int64_t alignment_;
  Kind kind_;
  int64_t parameter_number_ = -1;
  std::vector<uint8_t> constant_bytes_;
};

const char* BufferAllocationKindName(BufferAllocation::Kind kind);

}  // namespace xla_lite::gpu

#endif  // XLA_LITE_RUNTIME_BUFFER_ALLOCATION_H_
