#include "xla_lite/runtime/execution_output.h"

#include <utility>

#include "glog/logging.h"
#include "xla_lite/runtime/cached_allocator.h"

namespace xla_lite::gpu {

ExecutionOutput::ExecutionOutput(
    std::vector<se::ScopedDeviceAddress> results,
    std::vector<std::optional<int64_t>> aliased_parameters,
    std::shared_ptr<se::Event> done,
    std::shared_ptr<DeferredDeallocator> deallocator,
    std::shared_ptr<CachedAllocator> allocator,
    std::shared_ptr<ExecutionStats> stats)
    : results_(std::move(results)),
      aliased_parameters_(std::move(aliased_parameters)),
      done_(std::move(done)),
      deallocator_(std::move(deallocator)),
      allocator_(std::move(allocator)),
      stats_(std::move(stats)) {
  CHECK_EQ(results_.size(), aliased_parameters_.size());
  CHECK(deallocator_ != nullptr);
}

ExecutionOutput::~ExecutionOutput() { Release(); }

ExecutionOutput& ExecutionOutput::operator=(ExecutionOutput&& other) {
  if (this != &other) {
    Release();
    results_ = std::move(other.results_);
    aliased_parameters_ = std::move(other.aliased_parameters_);
    done_ = std::move(other.done_);
    deallocator_ = std::move(other.deallocator_);
    allocator_ = std::move(other.allocator_);
    stats_ = std::move(other.stats_);
  }
  return *this;
}

se::ScopedDeviceAddress ExecutionOutput::TakeResult(int64_t i) {
  se::ScopedDeviceAddress result = std::move(results_.at(i));
  if (allocator_ == nullptr) return result;
  return allocator_->Detach(std::move(result));
}

absl::Status ExecutionOutput::BlockUntilReady() const {
  return done_ == nullptr ? absl::OkStatus() : done_->Synchronize();
}

bool ExecutionOutput::IsReady() const {
  return done_ == nullptr || done_->IsComplete();
}

void ExecutionOutput::Release() {
  if (deallocator_ == nullptr) return;  // Empty or moved from.
  std::vector<se::ScopedDeviceAddress> held;
  for (se::ScopedDeviceAddress& result : results_) {
    if (!result.is_null()) held.push_back(std::move(result));
  }
  results_.clear();
  aliased_parameters_.clear();
  if (!held.empty()) {
    deallocator_->Defer(done_, std::move(held), allocator_, stats_);
  }
  deallocator_.reset();
  allocator_.reset();
  done_.reset();
  stats_.reset();
}

}  // namespace xla_lite::gpu
