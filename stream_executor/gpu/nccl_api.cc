#include "stream_executor/gpu/nccl_api.h"

#include <map>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "stream_executor/gpu/dso_loader.h"

namespace stream_executor::gpu {
namespace {

absl::StatusOr<std::unique_ptr<NcclApi>> Load(
    const std::string& library, const std::vector<std::string>& sonames) {
  std::vector<std::string> candidates;
  for (const std::string& soname : sonames) {
    for (std::string& c : LibraryCandidates(soname, {})) {
      candidates.push_back(std::move(c));
    }
  }
  ASSIGN_OR_RETURN(void* handle, OpenLibrary(library, candidates));
  auto api = std::make_unique<NcclApi>();
  api->library = library;
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclGetVersion",
                                  &api->GetVersion));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclGetErrorString",
                                  &api->GetErrorString));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclGetUniqueId",
                                  &api->GetUniqueId));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclCommInitRank",
                                  &api->CommInitRank));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclCommInitAll",
                                  &api->CommInitAll));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclCommDestroy",
                                  &api->CommDestroy));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclCommAbort",
                                  &api->CommAbort));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclCommGetAsyncError",
                                  &api->CommGetAsyncError));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclAllReduce",
                                  &api->AllReduce));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclAllGather",
                                  &api->AllGather));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclReduceScatter",
                                  &api->ReduceScatter));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclSend", &api->Send));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclRecv", &api->Recv));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclGroupStart",
                                  &api->GroupStart));
  RETURN_IF_ERROR(ResolveFunction(handle, library, "ncclGroupEnd",
                                  &api->GroupEnd));
  return api;
}

struct Loaded {
  absl::Mutex mu;
  std::map<std::string, absl::StatusOr<std::unique_ptr<NcclApi>>> apis
      ABSL_GUARDED_BY(mu);
};

}  // namespace

absl::Status NcclApi::Check(ncclResult_t result, const char* what) const {
  if (result == kNcclSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      library, " ", what, ": ",
      GetErrorString != nullptr ? GetErrorString(result) : "error", " (",
      result, ")"));
}

absl::StatusOr<const NcclApi*> LoadNcclApi(
    const std::string& library, const std::vector<std::string>& sonames) {
  static auto* loaded = new Loaded();
  absl::MutexLock lock(&loaded->mu);
  auto it = loaded->apis.find(library);
  if (it == loaded->apis.end()) {
    it = loaded->apis.emplace(library, Load(library, sonames)).first;
  }
  if (!it->second.ok()) return it->second.status();
  return it->second->get();
}

}  // namespace stream_executor::gpu
