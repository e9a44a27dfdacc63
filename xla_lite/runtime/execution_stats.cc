#include "xla_lite/runtime/execution_stats.h"

#include <iterator>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

constexpr ExecutionCounters::Field kFields[] = {
#define XLA_LITE_COUNTER(name) {#name, &ExecutionCounters::name},
#include "xla_lite/runtime/execution_counters.def"
};

// The same counters in ExecutionStats, in the same order as kFields.
constexpr std::atomic<int64_t> ExecutionStats::*kLiveFields[] = {
#define XLA_LITE_COUNTER(name) &ExecutionStats::name,
#include "xla_lite/runtime/execution_counters.def"
};

static_assert(sizeof(kFields) / sizeof(kFields[0]) ==
              sizeof(kLiveFields) / sizeof(kLiveFields[0]));

// name, `format`, value for every counter, joined by `between`.
std::string Join(const ExecutionCounters& counters, absl::string_view format,
                 absl::string_view between) {
  std::vector<std::string> parts;
  for (const ExecutionCounters::Field& field : kFields) {
    parts.push_back(absl::StrCat(field.name, format, counters.*field.value));
  }
  return absl::StrJoin(parts, between);
}

}  // namespace

absl::Span<const ExecutionCounters::Field> ExecutionCounters::Fields() {
  return kFields;
}

absl::string_view ExecutionCounters::NameOf(int64_t ExecutionCounters::*value) {
  const Field* found = nullptr;
  for (const Field& field : kFields) {
    if (field.value == value) found = &field;
  }
  CHECK(found != nullptr) << "not a counter of ExecutionCounters";
  return found->name;
}

ExecutionCounters ExecutionCounters::operator-(
    const ExecutionCounters& earlier) const {
  ExecutionCounters difference = *this;
  for (const Field& field : kFields) {
    difference.*field.value -= earlier.*field.value;
  }
  return difference;
}

ExecutionCounters ExecutionCounters::operator+(
    const ExecutionCounters& other) const {
  ExecutionCounters sum = *this;
  for (const Field& field : kFields) sum.*field.value += other.*field.value;
  return sum;
}

std::string ExecutionCounters::ToString() const {
  return Join(*this, "=", " ");
}

std::string ExecutionCounters::ToJson() const {
  return absl::StrCat("{\"", Join(*this, "\": ", ", \""), "}");
}

ExecutionCounters ExecutionStats::Snapshot() const {
  ExecutionCounters counters;
  for (size_t i = 0; i < std::size(kFields); ++i) {
    counters.*kFields[i].value = (this->*kLiveFields[i]).load();
  }
  return counters;
}

void ExecutionStats::Add(const ExecutionCounters& delta) {
  for (size_t i = 0; i < std::size(kFields); ++i) {
    if (int64_t value = delta.*kFields[i].value; value != 0) {
      this->*kLiveFields[i] += value;
    }
  }
}

std::string ExecutionStats::ToString() const { return Snapshot().ToString(); }

}  // namespace xla_lite::gpu
