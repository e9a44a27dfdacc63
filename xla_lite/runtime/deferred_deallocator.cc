#include "xla_lite/runtime/deferred_deallocator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"
#include "xla_lite/runtime/cached_allocator.h"

namespace xla_lite::gpu {
namespace {

// One status for many failures: the first failure's code, every message.
absl::Status JoinErrors(const std::vector<absl::Status>& errors) {
  if (errors.empty()) return absl::OkStatus();
  if (errors.size() == 1) return errors[0];
  std::string message = absl::StrFormat(
      "%d failures: %s", errors.size(),
      absl::StrJoin(errors, "; ", [](std::string* out, const absl::Status& s) {
        absl::StrAppend(out, s.message());
      }));
  return absl::Status(errors[0].code(), message);
}

}  // namespace

absl::Status FreeBuffers(std::vector<se::ScopedDeviceAddress>& buffers,
                         CachedAllocator* allocator, ExecutionStats* stats) {
  std::vector<absl::Status> errors;
  for (se::ScopedDeviceAddress& buffer : buffers) {
    if (buffer.is_null()) continue;
    uint64_t size = buffer.cref().size();
    // A buffer the allocator's cache keeps was not freed, and not counted.
    bool freed = true;
    absl::Status status;
    if (allocator != nullptr) {
      absl::StatusOr<bool> result = allocator->Free(std::move(buffer));
      status = result.status();
      freed = result.ok() && *result;
    } else {
      status = buffer.Free();
    }
    if (!status.ok()) {
      errors.push_back(std::move(status));
      if (stats != nullptr) ++stats->deallocation_failures;
      continue;
    }
    if (stats != nullptr && freed) {
      ++stats->buffers_freed;
      stats->bytes_freed += size;
    }
  }
  buffers.clear();
  return JoinErrors(errors);
}

DeferredDeallocator::~DeferredDeallocator() {
  absl::Status status = WaitAndFreeAll();
  if (!status.ok()) {
    LOG(ERROR) << "deallocation failures nobody collected: " << status;
  }
}

void DeferredDeallocator::Defer(std::shared_ptr<se::Event> done,
                                std::vector<se::ScopedDeviceAddress> buffers,
                                std::shared_ptr<CachedAllocator> allocator,
                                std::shared_ptr<ExecutionStats> stats) {
  Batch batch{std::move(done), std::move(allocator), std::move(buffers),
              std::move(stats)};
  if (batch.done == nullptr || batch.done->IsComplete()) {
    Free(batch);
    return;
  }
  absl::MutexLock lock(&batches_mu_);
  batches_.push_back(std::move(batch));
}

void DeferredDeallocator::Poll() {
  std::vector<Batch> completed;
  {
    absl::MutexLock lock(&batches_mu_);
    std::vector<Batch> pending;
    for (Batch& batch : batches_) {
      (batch.done->IsComplete() ? completed : pending).push_back(std::move(batch));
    }
    batches_ = std::move(pending);
  }
  for (Batch& batch : completed) Free(batch);
}

absl::Status DeferredDeallocator::WaitAndFreeAll() {
  std::vector<Batch> batches;
  {
    absl::MutexLock lock(&batches_mu_);
    batches.swap(batches_);
  }
  for (Batch& batch : batches) {
    // A device that cannot report completion will never run the work, so
    // the buffers are freed anyway; the failure is reported with the rest.
    absl::Status status = batch.done->Synchronize();
    if (!status.ok()) {
      absl::MutexLock lock(&errors_mu_);
      errors_.push_back(std::move(status));
    }
    Free(batch);
  }
  absl::MutexLock lock(&errors_mu_);
  return JoinErrors(std::exchange(errors_, {}));
}

int64_t DeferredDeallocator::outstanding_batches() const {
  absl::MutexLock lock(&batches_mu_);
  return batches_.size();
}

void DeferredDeallocator::Free(Batch& batch) {
  absl::Status status =
      FreeBuffers(batch.buffers, batch.allocator.get(), batch.stats.get());
  if (status.ok()) return;
  LOG(WARNING) << "deferred deallocation failed: " << status;
  absl::MutexLock lock(&errors_mu_);
  errors_.push_back(std::move(status));
}

}  // namespace xla_lite::gpu
