#ifndef XLA_LITE_HLO_HLO_EVALUATOR_RENDEZVOUS_H_
#define XLA_LITE_HLO_HLO_EVALUATOR_RENDEZVOUS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "xla_lite/hlo/literal.h"

namespace xla_lite::evaluator_internal {

// Where the evaluator's devices (one thread each) meet at a collective.
// Every device of the run takes part in every collective, in program
// order: the k-th collective a device reaches is exchange k for all of
// them, so one program needs no keys beyond that count.
class EvaluatorRendezvous {
 public:
  explicit EvaluatorRendezvous(int64_t device_count);

  // Every device's value for exchange `seq`, indexed by device, once all
  // have arrived. DEADLINE_EXCEEDED naming the devices missing after
  // `timeout`; INVALID_ARGUMENT when devices reached different
  // instructions at that point; the abort status after an Abort.
  absl::StatusOr<std::shared_ptr<const std::vector<Literal>>> Exchange(
      int64_t seq, int64_t device, const std::string& instruction,
      Literal value, absl::Duration timeout);

  // A device that failed: every waiting and later Exchange returns
  // `status` instead of waiting for it.
  void Abort(const absl::Status& status);

 private:
  struct Slot {
    std::vector<Literal> values;
    std::vector<bool> arrived;
    int64_t arrived_count = 0;
    int64_t taken_count = 0;
    std::string instruction;
    std::shared_ptr<const std::vector<Literal>> done;
  };

  const int64_t device_count_;
  absl::Mutex mu_;
  // A map: waiters hold references to their slot while others insert.
  std::map<int64_t, Slot> slots_ ABSL_GUARDED_BY(mu_);
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
};

}  // namespace xla_lite::evaluator_internal

#endif  // XLA_LITE_HLO_HLO_EVALUATOR_RENDEZVOUS_H_
