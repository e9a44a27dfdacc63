#include "xla_lite/hlo/hlo_evaluator_rendezvous.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_lite::evaluator_internal {

EvaluatorRendezvous::EvaluatorRendezvous(int64_t device_count)
    : device_count_(device_count) {}

void EvaluatorRendezvous::Abort(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (aborted_.ok()) aborted_ = status;
}

absl::StatusOr<std::shared_ptr<const std::vector<Literal>>>
EvaluatorRendezvous::Exchange(int64_t seq, int64_t device,
                              const std::string& instruction, Literal value,
                              absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  if (!aborted_.ok()) return aborted_;
  Slot& slot = slots_[seq];
  if (slot.values.empty()) {
    slot.values.resize(device_count_);
    slot.arrived.assign(device_count_, false);
    slot.instruction = instruction;
  }
  if (slot.instruction != instruction) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device ", device, " reached collective '", instruction,
        "' where another device reached '", slot.instruction,
        "': the devices run different programs"));
  }
  slot.values[device] = std::move(value);
  slot.arrived[device] = true;
  if (++slot.arrived_count == device_count_) {
    slot.done = std::make_shared<const std::vector<Literal>>(
        std::move(slot.values));
  }
  auto ready = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return slot.done != nullptr || !aborted_.ok();
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  if (!aborted_.ok()) return aborted_;
  if (slot.done == nullptr) {
    std::vector<int64_t> missing;
    for (int64_t d = 0; d < device_count_; ++d) {
      if (!slot.arrived[d]) missing.push_back(d);
    }
    absl::Status status = absl::DeadlineExceededError(absl::StrCat(
        "collective '", instruction, "': device(s) ",
        absl::StrJoin(missing, ","), " did not arrive within ",
        absl::FormatDuration(timeout)));
    aborted_ = status;
    return status;
  }
  std::shared_ptr<const std::vector<Literal>> done = slot.done;
  if (++slot.taken_count == device_count_) slots_.erase(seq);
  return done;
}

}  // namespace xla_lite::evaluator_internal
