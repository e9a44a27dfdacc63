#include "stream_executor/collectives/communicator.h"

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace stream_executor {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, CollectivesBackend*> backends
      ABSL_GUARDED_BY(mu);
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

}  // namespace

int64_t CollectiveDataTypeSize(CollectiveDataType type) {
  switch (type) {
    case CollectiveDataType::kBF16:
    case CollectiveDataType::kF16:
      return 2;
    case CollectiveDataType::kF32:
    case CollectiveDataType::kS32:
    case CollectiveDataType::kU32:
      return 4;
    case CollectiveDataType::kS64:
    case CollectiveDataType::kF64:
      return 8;
  }
  return 0;
}

const char* CollectiveDataTypeName(CollectiveDataType type) {
  switch (type) {
    case CollectiveDataType::kF32:
      return "f32";
    case CollectiveDataType::kBF16:
      return "bf16";
    case CollectiveDataType::kF16:
      return "f16";
    case CollectiveDataType::kS32:
      return "s32";
    case CollectiveDataType::kU32:
      return "u32";
    case CollectiveDataType::kS64:
      return "s64";
    case CollectiveDataType::kF64:
      return "f64";
  }
  return "?";
}

const char* ReductionKindName(ReductionKind kind) {
  switch (kind) {
    case ReductionKind::kSum:
      return "sum";
    case ReductionKind::kProduct:
      return "product";
    case ReductionKind::kMax:
      return "max";
    case ReductionKind::kMin:
      return "min";
  }
  return "?";
}

absl::StatusOr<CollectivesBackend*> CollectivesBackendFor(
    const std::string& platform_name) {
  Registry& registry = GetRegistry();
  absl::MutexLock lock(&registry.mu);
  auto it = registry.backends.find(platform_name);
  if (it == registry.backends.end()) {
    return absl::NotFoundError(absl::StrCat(
        "no collectives backend for platform '", platform_name,
        "' in this binary"));
  }
  return it->second;
}

void RegisterCollectivesBackend(const std::string& platform_name,
                                CollectivesBackend* backend) {
  Registry& registry = GetRegistry();
  absl::MutexLock lock(&registry.mu);
  registry.backends[platform_name] = backend;
}

}  // namespace stream_executor
