#ifndef STREAM_EXECUTOR_PLATFORM_MANAGER_H_
#define STREAM_EXECUTOR_PLATFORM_MANAGER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "stream_executor/platform.h"

namespace stream_executor {

// Process-wide registry of platforms by name. Platforms register themselves
// from static initializers in their own libraries (linked with alwayslink),
// so a binary has exactly the platforms it was built with.
class PlatformManager {
 public:
  static absl::Status RegisterPlatform(std::unique_ptr<Platform> platform);

  // Lookup is case-insensitive. NOT_FOUND lists the registered names.
  static absl::StatusOr<Platform*> PlatformWithName(absl::string_view name);

  // Like PlatformWithName, but also fails when the platform is registered
  // but unavailable here, with the platform's own reason.
  static absl::StatusOr<Platform*> AvailablePlatformWithName(
      absl::string_view name);

  static std::vector<std::string> ListPlatformNames();

  // The first available of "cuda", "rocm", then "host".
  static absl::StatusOr<Platform*> DefaultPlatform();
};

}  // namespace stream_executor

#endif  // STREAM_EXECUTOR_PLATFORM_MANAGER_H_
