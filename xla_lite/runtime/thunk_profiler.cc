#include "xla_lite/runtime/thunk_profiler.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

// The path's total, then its `limit` longest thunks in the path's order.
std::string CriticalPathReport(const ThunkProfiler::CriticalPath& path,
                               int limit) {
  std::string out = absl::StrFormat(
      "critical path (dependencies as a command buffer records them): "
      "%.1f us over %d thunks, of %.1f us one after another\n",
      path.us, path.entries.size(), path.serial_us);
  std::vector<double> times;
  for (const auto& entry : path.entries) times.push_back(entry.total_us);
  std::sort(times.begin(), times.end(), std::greater<double>());
  const double floor =
      times.empty() ? 0 : times[std::min<int>(limit, times.size()) - 1];
  int shown = 0;
  for (int i = 0; i < path.entries.size() && shown < limit; ++i) {
    const auto& e = path.entries[i];
    if (e.total_us < floor) continue;
    ++shown;
    absl::StrAppendFormat(&out, "  %4d %10.2f  %-8s %s\n", i + 1, e.total_us,
                          ThunkKindName(e.kind), e.name);
  }
  return out;
}

}  // namespace

ThunkProfiler::ThunkProfiler(int repeats) : repeats_(std::max(1, repeats)) {}

absl::Status ThunkProfiler::Measure(const Thunk& thunk, se::Stream& stream,
                                    absl::FunctionRef<absl::Status()> execute) {
  RETURN_IF_ERROR(stream.BlockHostUntilDone());
  absl::Time start = absl::Now();
  for (int r = 0; r < repeats_; ++r) RETURN_IF_ERROR(execute());
  RETURN_IF_ERROR(stream.BlockHostUntilDone());
  double us = absl::ToDoubleMicroseconds(absl::Now() - start) / repeats_;
  VLOG(5) << "profile " << thunk.name() << ": " << us << " us";
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = index_.try_emplace(&thunk, entries_.size());
  if (inserted) {
    entries_.push_back({thunk.name(), thunk.kind()});
    BufferUses uses = thunk.buffer_uses();
    waits_for_.push_back(dependencies_.DependenciesOf(uses));
    dependencies_.Add(it->second, uses);
  }
  Entry& entry = entries_[it->second];
  ++entry.executions;
  entry.total_us += us;
  return absl::OkStatus();
}

std::vector<ThunkProfiler::Entry> ThunkProfiler::Entries() const {
  std::vector<Entry> entries;
  {
    absl::MutexLock lock(&mu_);
    entries = entries_;
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) {
                     return a.total_us > b.total_us;
                   });
  return entries;
}

ThunkProfiler::CriticalPath ThunkProfiler::FindCriticalPath() const {
  absl::MutexLock lock(&mu_);
  CriticalPath path;
  std::vector<double> micros;
  for (const Entry& e : entries_) {
    micros.push_back(e.executions > 0 ? e.total_us / e.executions : 0);
    path.serial_us += micros.back();
  }
  const LongestPath longest = FindLongestPath(micros, waits_for_);
  path.us = longest.micros;
  for (int64_t i : longest.commands) {
    Entry entry = entries_[i];
    entry.total_us /= std::max<int64_t>(1, entry.executions);
    entry.executions = 1;
    path.entries.push_back(std::move(entry));
  }
  return path;
}

std::string ThunkProfiler::Report(int limit) const {
  std::vector<Entry> entries = Entries();
  double total = 0;
  std::map<std::string, std::pair<int64_t, double>> by_kind;
  for (const Entry& entry : entries) {
    total += entry.total_us;
    auto& [count, us] = by_kind[ThunkKindName(entry.kind)];
    ++count;
    us += entry.total_us;
  }
  auto share = [&](double us) { return total > 0 ? 100 * us / total : 0.0; };
  std::string out = absl::StrFormat(
      "%d thunks, %.1f us in all (each the mean of %d back-to-back "
      "launches)\n%4s %10s %6s  %-8s %s\n",
      entries.size(), total, repeats_, "rank", "us", "share", "kind", "thunk");
  for (int i = 0; i < entries.size() && i < limit; ++i) {
    const Entry& e = entries[i];
    absl::StrAppendFormat(&out, "%4d %10.2f %5.1f%%  %-8s %s\n", i + 1,
                          e.total_us, share(e.total_us),
                          ThunkKindName(e.kind), e.name);
  }
  absl::StrAppend(&out, "by kind:\n");
  for (const auto& [kind, count_us] : by_kind) {
    absl::StrAppendFormat(&out, "  %-8s %5d thunks %10.2f us %5.1f%%\n", kind,
                          count_us.first, count_us.second,
                          share(count_us.second));
  }
  absl::StrAppend(&out, CriticalPathReport(FindCriticalPath(), limit));
  return out;
}

}  // namespace xla_lite::gpu
