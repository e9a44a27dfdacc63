#include "stream_executor/host/host_memory.h"

#include <cstring>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

// The premature-free detection of later tests rests on this: memory freed
// while work may still read it holds poison, not stale or reused data.
TEST(HostMemoryTest, FreedMemoryIsPoisonedAndNotReusedAtOnce) {
  HostMemory memory(0);
  auto a = memory.Allocate(256, 0);
  ASSERT_TRUE(a.ok());
  std::memset(a->opaque(), 0x11, 256);
  auto* raw = static_cast<volatile uint8_t*>(a->opaque());
  ASSERT_TRUE(memory.Deallocate(*a, 0).ok());
#if !defined(__SANITIZE_ADDRESS__)  // Under ASan the read itself is reported.
  for (int i = 0; i < 256; ++i) ASSERT_EQ(raw[i], HostMemory::kPoisonByte) << i;
#endif
  auto b = memory.Allocate(256, 0);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(b->opaque(), a->opaque()) << "quarantined block was reused";
  ASSERT_TRUE(memory.Deallocate(*b, 0).ok());
  (void)raw;
}

TEST(HostMemoryTest, AlignmentAndAccounting) {
  HostMemory memory(1000);
  auto a = memory.Allocate(10, 0);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->opaque()) % HostMemory::kAlignment, 0);
  EXPECT_EQ(memory.allocated_bytes(), HostMemory::kAlignment);
  EXPECT_EQ(memory.Allocate(1000, 0).status().code(),
            absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(memory.Deallocate(*a, 0).ok());
  EXPECT_EQ(memory.allocated_bytes(), 0);
  EXPECT_EQ(memory.Deallocate(*a, 0).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stream_executor::host
