#include "stream_executor/gpu/content_hash.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace stream_executor::gpu {
namespace {

using uint128 = unsigned __int128;

// FNV-1a 128-bit parameters (http://www.isthe.com/chongo/tech/comp/fnv/).
constexpr uint128 kOffsetBasis =
    (uint128{0x6c62272e07bb0142ULL} << 64) | 0x62b821756295c58dULL;
constexpr uint128 kPrime = (uint128{0x0000000001000000ULL} << 64) | 0x13bULL;

uint128 Mix(uint128 hash, absl::string_view bytes) {
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= kPrime;
  }
  return hash;
}

}  // namespace

std::string ContentHash(absl::Span<const absl::string_view> parts) {
  uint128 hash = kOffsetBasis;
  for (absl::string_view part : parts) {
    uint64_t size = part.size();
    hash = Mix(hash, absl::string_view(reinterpret_cast<const char*>(&size),
                                       sizeof(size)));
    hash = Mix(hash, part);
  }
  return absl::StrFormat("%016x%016x", static_cast<uint64_t>(hash >> 64),
                         static_cast<uint64_t>(hash));
}

}  // namespace stream_executor::gpu
