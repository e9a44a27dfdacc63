#include "xla_lite/runtime/command_dependencies.h"

#include <algorithm>

#include "glog/logging.h"

namespace xla_lite::gpu {
namespace {

bool Conflict(BufferUse::Access a, BufferUse::Access b) {
  return a == BufferUse::Access::kWrite || b == BufferUse::Access::kWrite;
}

// Whether every byte of `inner` lies in `outer`.
bool Covers(const BufferAllocation::Slice& outer,
            const BufferAllocation::Slice& inner) {
  return outer.index() == inner.index() && outer.offset() <= inner.offset() &&
         inner.offset() + inner.size() <= outer.offset() + outer.size();
}

}  // namespace

std::vector<int64_t> CommandDependencies::DependenciesOf(
    const BufferUses& uses) const {
  std::vector<int64_t> deps;
  for (const BufferUse& use : uses) {
    auto live = live_.find(use.slice.index());
    if (live == live_.end()) continue;
    for (const Access& earlier : live->second) {
      if (Conflict(use.access, earlier.access) &&
          use.slice.OverlapsWith(earlier.slice)) {
        deps.push_back(earlier.command);
      }
    }
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  return deps;
}

void CommandDependencies::Add(int64_t id, const BufferUses& uses) {
  CHECK_LT(last_command_, id) << "command " << id << " added out of order";
  last_command_ = id;
  // Forget covered accesses before adding this command's own, so that a
  // read-modify-write of one slice keeps both of its accesses.
  for (const BufferUse& use : uses) {
    if (use.access != BufferUse::Access::kWrite || use.slice.size() == 0) {
      continue;
    }
    auto live = live_.find(use.slice.index());
    if (live == live_.end()) continue;
    std::vector<Access>& accesses = live->second;
    accesses.erase(std::remove_if(accesses.begin(), accesses.end(),
                                  [&](const Access& earlier) {
                                    return Covers(use.slice, earlier.slice);
                                  }),
                   accesses.end());
  }
  for (const BufferUse& use : uses) {
    // An empty slice overlaps nothing, so it can never order anything.
    if (use.slice.size() == 0) continue;
    live_[use.slice.index()].push_back(Access{use.slice, use.access, id});
  }
}

int64_t DropImpliedDependencies(
    std::vector<std::vector<int64_t>>& dependencies) {
  const int64_t n = dependencies.size();
  if (n > kMaxReducedCommands) return 0;
  int64_t dropped = 0;
  const int64_t words = (n + 63) / 64;
  // ancestors[i * words, (i + 1) * words): the commands i waits for,
  // directly or through others.
  std::vector<uint64_t> ancestors(n * words, 0);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t* mine = &ancestors[i * words];
    std::vector<int64_t>& deps = dependencies[i];
    // Latest first: an earlier dependency can only be implied by a later
    // one, whose ancestors are then already in `mine`.
    std::vector<int64_t> kept;
    for (auto d = deps.rbegin(); d != deps.rend(); ++d) {
      if ((mine[*d / 64] >> (*d % 64) & 1) != 0) continue;
      kept.push_back(*d);
      const uint64_t* theirs = &ancestors[*d * words];
      for (int64_t w = 0; w < words; ++w) mine[w] |= theirs[w];
      mine[*d / 64] |= uint64_t{1} << (*d % 64);
    }
    dropped += deps.size() - kept.size();
    deps.assign(kept.rbegin(), kept.rend());
  }
  return dropped;
}

LongestPath FindLongestPath(
    absl::Span<const double> micros,
    absl::Span<const std::vector<int64_t>> dependencies) {
  CHECK_EQ(micros.size(), dependencies.size());
  // finish[i]: the longest chain ending in command i; previous[i]: the
  // command before it on that chain, or -1.
  std::vector<double> finish(micros.size(), 0);
  std::vector<int64_t> previous(micros.size(), -1);
  int64_t last = -1;
  for (int64_t i = 0; i < micros.size(); ++i) {
    for (int64_t d : dependencies[i]) {
      CHECK_LT(d, i) << "dependencies must point to earlier commands";
      if (previous[i] < 0 || finish[d] > finish[previous[i]]) previous[i] = d;
    }
    finish[i] = micros[i] + (previous[i] < 0 ? 0 : finish[previous[i]]);
    if (last < 0 || finish[i] > finish[last]) last = i;
  }
  LongestPath path;
  if (last < 0) return path;
  path.micros = finish[last];
  for (int64_t i = last; i >= 0; i = previous[i]) path.commands.push_back(i);
  std::reverse(path.commands.begin(), path.commands.end());
  return path;
}

}  // namespace xla_lite::gpu
