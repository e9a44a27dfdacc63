#include "base/file_util.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace base {
namespace {

using ::testing::HasSubstr;

class FileUtilTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = absl::StrCat(::testing::TempDir(), "/file_util_", test->name());
    std::filesystem::remove_all(dir_);
    ASSERT_TRUE(CreateDirectories(dir_).ok());
  }

  std::string Path(const std::string& name) const {
    return absl::StrCat(dir_, "/", name);
  }

  // Names in the test's folder: a failed write must leave no temporary.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  std::string dir_;
};

TEST_F(FileUtilTest, WritesAndReadsBack) {
  const std::string path = Path("a.txt");
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string("sec\0ond", 7)).ok());
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, std::string("sec\0ond", 7));
  EXPECT_THAT(Entries(), ::testing::ElementsAre("a.txt"));

  ASSERT_TRUE(WriteFileAtomically(Path("empty"), "").ok());
  contents = ReadFileToString(Path("empty"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, "");
}

TEST_F(FileUtilTest, ReadsLargerThanOneBuffer) {
  std::string big(3 << 20, 'x');
  big[12345] = 'y';
  ASSERT_TRUE(WriteFileAtomically(Path("big"), big).ok());
  absl::StatusOr<std::string> contents = ReadFileToString(Path("big"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, big);
}

TEST_F(FileUtilTest, FollowsSymbolicLinks) {
  ASSERT_TRUE(WriteFileAtomically(Path("target"), "linked").ok());
  ASSERT_EQ(symlink(Path("target").c_str(), Path("link").c_str()), 0);
  absl::StatusOr<std::string> contents = ReadFileToString(Path("link"));
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, "linked");
}

TEST_F(FileUtilTest, MissingFileIsNotFound) {
  absl::StatusOr<std::string> contents = ReadFileToString(Path("missing"));
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(contents.status().message(), HasSubstr(Path("missing")));
  EXPECT_THAT(contents.status().message(), HasSubstr("No such file"));
}

TEST_F(FileUtilTest, DirectoryIsNotARegularFile) {
  absl::StatusOr<std::string> contents = ReadFileToString(dir_);
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(contents.status().message(), HasSubstr(dir_));
  EXPECT_THAT(contents.status().message(), HasSubstr("not a regular file"));
}

// Opening a FIFO for reading would wait for a writer: the test would hang.
TEST_F(FileUtilTest, FifoIsRefusedWithoutBlocking) {
  const std::string path = Path("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(contents.status().message(), HasSubstr(path));
}

// /dev/zero never ends; /dev/null is empty but still not a file.
TEST_F(FileUtilTest, DevicesAreRefused) {
  for (const char* device : {"/dev/zero", "/dev/null"}) {
    absl::StatusOr<std::string> contents = ReadFileToString(device);
    EXPECT_EQ(contents.status().code(), absl::StatusCode::kInvalidArgument)
        << device;
  }
}

TEST_F(FileUtilTest, LargerThanTheLimitIsResourceExhausted) {
  const std::string path = Path("hundred");
  ASSERT_TRUE(WriteFileAtomically(path, std::string(100, 'a')).ok());
  absl::StatusOr<std::string> contents = ReadFileToString(path, 99);
  EXPECT_EQ(contents.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(contents.status().message(), HasSubstr(path));
  EXPECT_THAT(contents.status().message(), HasSubstr("100 bytes"));

  contents = ReadFileToString(path, 100);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(contents->size(), 100);
}

TEST_F(FileUtilTest, WriteIntoMissingFolderCreatesNothing) {
  absl::Status status = WriteFileAtomically(Path("no/such/dir/x"), "x");
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound) << status;
  EXPECT_THAT(status.message(), HasSubstr(Path("no/such/dir/x")));
  EXPECT_TRUE(Entries().empty());
}

// The rename fails (the target is a folder that is not empty): the folder
// stays and the written temporary is removed.
TEST_F(FileUtilTest, FailedRenameLeavesNoTemporary) {
  ASSERT_TRUE(CreateDirectories(Path("target/inner")).ok());
  absl::Status status = WriteFileAtomically(Path("target"), "contents");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(Path("target")));
  EXPECT_THAT(Entries(), ::testing::ElementsAre("target"));
  EXPECT_TRUE(std::filesystem::is_directory(Path("target/inner")));
}

// A write that fails part way (the file size limit of the process): the old
// file keeps its contents and nothing else is left behind.
TEST_F(FileUtilTest, FailedWriteKeepsTheOldFile) {
  const std::string path = Path("kept");
  ASSERT_TRUE(WriteFileAtomically(path, "old contents").ok());

  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  auto previous = std::signal(SIGXFSZ, SIG_IGN);  // EFBIG instead of a kill.
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  absl::Status status = WriteFileAtomically(path, std::string(1 << 16, 'n'));
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, previous);

  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("File too large"));
  absl::StatusOr<std::string> contents = ReadFileToString(path);
  ASSERT_TRUE(contents.ok()) << contents.status();
  EXPECT_EQ(*contents, "old contents");
  EXPECT_THAT(Entries(), ::testing::ElementsAre("kept"));
}

TEST_F(FileUtilTest, CreatesNestedDirectories) {
  ASSERT_TRUE(CreateDirectories(Path("a/b/c")).ok());
  EXPECT_TRUE(std::filesystem::is_directory(Path("a/b/c")));
  EXPECT_TRUE(CreateDirectories(Path("a/b/c")).ok());  // Already there.

  ASSERT_TRUE(WriteFileAtomically(Path("file"), "x").ok());
  absl::Status status = CreateDirectories(Path("file/sub"));
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(Path("file/sub")));
}

}  // namespace
}  // namespace base
