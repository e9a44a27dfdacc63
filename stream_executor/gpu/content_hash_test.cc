#include "stream_executor/gpu/content_hash.h"

#include "gtest/gtest.h"

namespace stream_executor::gpu {
namespace {

TEST(ContentHashTest, IsStableAcrossProcesses) {
  // A fixed value: the on-disk kernel cache depends on it never changing.
  EXPECT_EQ(ContentHash({}), "6c62272e07bb014262b821756295c58d");
  EXPECT_EQ(ContentHash({"kernel"}), ContentHash({"kernel"}));
}

TEST(ContentHashTest, SeparatesParts) {
  EXPECT_NE(ContentHash({"ab", "c"}), ContentHash({"a", "bc"}));
  EXPECT_NE(ContentHash({"sm_90", "src"}), ContentHash({"sm_80", "src"}));
  EXPECT_EQ(ContentHash({"x"}).size(), 32);
}

}  // namespace
}  // namespace stream_executor::gpu
