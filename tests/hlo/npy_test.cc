#include "xla_lite/hlo/npy.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace xla_lite {
namespace {

using ::testing::HasSubstr;

// A .npy file by hand: magic, version, little-endian header length,
// header, data.
std::string NpyBytes(int major, const std::string& header,
                     const std::string& data) {
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  const size_t length = header.size();
  const int length_bytes = major == 1 ? 2 : 4;
  for (int i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  }
  return out + header + data;
}

TEST(NpyTest, RoundTripsEveryType) {
  struct Case {
    PrimitiveType type;
    std::vector<int64_t> dims;
    std::vector<double> values;
  };
  const std::vector<Case> cases = {
      {PrimitiveType::F32, {2, 3}, {1, -2.5, 3e-8, 4, 5, 6}},
      {PrimitiveType::F16, {3}, {1, -0.5, 65504}},
      {PrimitiveType::BF16, {2}, {1.5, -256}},
      {PrimitiveType::S32, {2, 1}, {-7, 2147483647}},
      {PrimitiveType::S64, {2}, {-1, 1e15}},
      {PrimitiveType::PRED, {4}, {1, 0, 0, 1}},
      {PrimitiveType::U8, {}, {200}},
      {PrimitiveType::S8, {2}, {-128, 127}},
      {PrimitiveType::S16, {2}, {-32768, 1234}},
      {PrimitiveType::U16, {2}, {65535, 7}},
      {PrimitiveType::U32, {2}, {4294967295.0, 3}},
      {PrimitiveType::U64, {2}, {1e19, 0}},
      {PrimitiveType::F64, {2}, {0.1, -1e300}},
  };
  for (const Case& c : cases) {
    Literal literal = Literal::FromDoubles(Shape::Array(c.type, c.dims),
                                           c.values);
    std::string bytes = SerializeNpy(literal);
    // Data starts 64-byte aligned, as NumPy writes it.
    EXPECT_EQ((bytes.size() - literal.bytes().size()) % 64, 0);
    absl::StatusOr<Literal> back = c.type == PrimitiveType::BF16
                                       ? ParseNpyWithBF16(bytes)
                                       : ParseNpy(bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->shape(), literal.shape()) << literal.shape().ToString();
    EXPECT_EQ(back->bytes(), literal.bytes()) << literal.shape().ToString();
  }
}

TEST(NpyTest, ReadsWhatNumPyWrites) {
  // np.save of np.array([[1, 2], [3, 4]], dtype=np.int32), header padded.
  std::string header =
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
  header.append(118 - header.size() - 1, ' ');
  header.push_back('\n');
  std::string data;
  for (int32_t v : {1, 2, 3, 4}) {
    data.append(reinterpret_cast<const char*>(&v), 4);
  }
  for (int major : {1, 2, 3}) {
    absl::StatusOr<Literal> literal = ParseNpy(NpyBytes(major, header, data));
    ASSERT_TRUE(literal.ok()) << major << ": " << literal.status();
    EXPECT_EQ(literal->shape(), Shape::Array(PrimitiveType::S32, {2, 2}));
    EXPECT_EQ(literal->GetAsInt64(3), 4);
  }
  // A scalar: shape ().
  float one = 1;
  absl::StatusOr<Literal> scalar = ParseNpy(NpyBytes(
      1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}\n",
      std::string(reinterpret_cast<const char*>(&one), 4)));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape().rank(), 0);
  EXPECT_EQ(scalar->GetAsDouble(0), 1);
}

TEST(NpyTest, Errors) {
  const std::string good_header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::string eight_bytes(8, '\0');
  struct Case {
    std::string bytes;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"\x93NUMPZ\x01\x00", "bad magic"},
      {"PK\x03\x04", "bad magic"},
      {NpyBytes(1, good_header, eight_bytes).substr(0, 20),
       "truncated .npy header"},
      {NpyBytes(1, good_header, eight_bytes.substr(0, 5)),
       "needs 8 bytes, the file has 5"},
      {NpyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n",
                eight_bytes),
       "fortran_order"},
      {NpyBytes(1,
                "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n",
                eight_bytes),
       "unsupported .npy dtype '>f4'"},
      {NpyBytes(1,
                "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n",
                eight_bytes),
       "unsupported .npy dtype '<c8'"},
      {NpyBytes(1,
                "{'descr': '<V2', 'fortran_order': False, 'shape': (4,), }\n",
                eight_bytes),
       "ParseNpyWithBF16"},
      {NpyBytes(1, "{'descr': '<f4', 'shape': (2,), }\n", eight_bytes),
       "lacks"},
      {NpyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 }\n",
                eight_bytes),
       "expected ')'"},
      {NpyBytes(4, good_header, eight_bytes), "version 4"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Literal> literal = ParseNpy(c.bytes, "x.npy");
    ASSERT_FALSE(literal.ok()) << c.expected;
    EXPECT_EQ(literal.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(literal.status().message(), HasSubstr("x.npy: "));
    EXPECT_THAT(literal.status().message(), HasSubstr(c.expected));
  }
}

TEST(NpyTest, FilesNameTheirPath) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/a.npy");
  Literal literal =
      Literal::FromDoubles(Shape::Array(PrimitiveType::F32, {3}), {1, 2, 3});
  ASSERT_TRUE(WriteNpyFile(path, literal).ok());
  absl::StatusOr<Literal> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->bytes(), literal.bytes());

  absl::StatusOr<Literal> missing = ReadNpyFile("/nonexistent/b.npy");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/b.npy"));

  const std::string bad_path = absl::StrCat(::testing::TempDir(), "/bad.npy");
  std::FILE* f = std::fopen(bad_path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("not numpy", f);
  std::fclose(f);
  absl::StatusOr<Literal> bad = ReadNpyFile(bad_path);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr(bad_path));

  absl::Status unwritable = WriteNpyFile("/nonexistent/c.npy", literal);
  EXPECT_FALSE(unwritable.ok());
  EXPECT_THAT(unwritable.message(), HasSubstr("/nonexistent/c.npy"));
}

}  // namespace
}  // namespace xla_lite
