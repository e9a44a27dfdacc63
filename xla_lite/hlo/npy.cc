#include "xla_lite/hlo/npy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "glog/logging.h"

namespace xla_lite {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

// Reads the header's Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderReader {
 public:
  HeaderReader(absl::string_view text, absl::string_view source)
      : text_(text), source_(source) {}

  absl::StatusOr<NpyHeader> Read() {
    NpyHeader header;
    bool has_descr = false, has_order = false, has_shape = false;
    RETURN_IF_ERROR(Expect('{'));
    while (!TryConsume('}')) {
      ASSIGN_OR_RETURN(std::string key, ReadString());
      RETURN_IF_ERROR(Expect(':'));
      if (key == "descr") {
        ASSIGN_OR_RETURN(header.descr, ReadString());
        has_descr = true;
      } else if (key == "fortran_order") {
        ASSIGN_OR_RETURN(header.fortran_order, ReadBool());
        has_order = true;
      } else if (key == "shape") {
        ASSIGN_OR_RETURN(header.shape, ReadTuple());
        has_shape = true;
      } else {
        return Error(absl::StrCat("unknown header key '",
                                  absl::CEscape(key.substr(0, 64)), "'"));
      }
      if (!TryConsume(',')) {
        RETURN_IF_ERROR(Expect('}'));
        break;
      }
    }
    if (!has_descr || !has_order || !has_shape) {
      return Error("header lacks one of 'descr', 'fortran_order', 'shape'");
    }
    return header;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    // The header is up to 4 GB of arbitrary bytes: show a short, escaped
    // excerpt around the offset.
    const size_t from = pos_ > 32 ? pos_ - 32 : 0;
    absl::string_view excerpt = text_.substr(from, 64);
    return absl::InvalidArgumentError(absl::StrCat(
        source_, ": bad .npy header at offset ", pos_, ": ", what, " in \"",
        from > 0 ? "..." : "", absl::CEscape(excerpt),
        from + excerpt.size() < text_.size() ? "..." : "", "\""));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool TryConsume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  absl::Status Expect(char c) {
    if (TryConsume(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", std::string(1, c), "'"));
  }
  absl::StatusOr<std::string> ReadString() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == absl::string_view::npos) return Error("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  absl::StatusOr<bool> ReadBool() {
    SkipSpace();
    for (const auto& [word, value] :
         {std::pair<absl::string_view, bool>{"True", true}, {"False", false}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    return Error("expected True or False");
  }
  absl::StatusOr<std::vector<int64_t>> ReadTuple() {
    RETURN_IF_ERROR(Expect('('));
    std::vector<int64_t> values;
    while (!TryConsume(')')) {
      if (values.size() == Shape::kMaxRank) {
        return Error(absl::StrCat("more than ", Shape::kMaxRank,
                                  " dimensions"));
      }
      SkipSpace();
      size_t start = pos_;
      while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
      int64_t value;
      if (!absl::SimpleAtoi(text_.substr(start, pos_ - start), &value)) {
        return Error("expected a dimension size");
      }
      values.push_back(value);
      if (!TryConsume(',')) {
        RETURN_IF_ERROR(Expect(')'));
        break;
      }
    }
    return values;
  }

  absl::string_view text_;
  absl::string_view source_;
  size_t pos_ = 0;
};

absl::StatusOr<PrimitiveType> TypeForDescr(const std::string& descr,
                                           bool u2_is_bf16,
                                           absl::string_view source) {
  std::optional<PrimitiveType> type =
      primitive_util::PrimitiveTypeForNpyDescr(descr);
  if (type == PrimitiveType::U16 && u2_is_bf16) return PrimitiveType::BF16;
  if (type.has_value()) return *type;
  std::string hint =
      descr == "<V2" ? " (bf16 arrays are read from '<u2' by ParseNpyWithBF16)"
                     : "";
  std::vector<std::string> supported;
  for (PrimitiveType t : primitive_util::AllPrimitiveTypes()) {
    if (t != PrimitiveType::BF16) {
      supported.emplace_back(primitive_util::NpyDescr(t));
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat(source, ": unsupported .npy dtype '",
                   absl::CEscape(descr.substr(0, 64)),
                   "'; supported: ", absl::StrJoin(supported, ", "), hint));
}

uint32_t ReadLittleEndian(absl::string_view bytes, size_t offset, int size) {
  uint32_t value = 0;
  for (int i = size - 1; i >= 0; --i) {
    value = (value << 8) | static_cast<uint8_t>(bytes[offset + i]);
  }
  return value;
}

absl::StatusOr<Literal> Parse(absl::string_view bytes,
                              absl::string_view source, bool u2_is_bf16) {
  if (bytes.size() < kMagicSize + 2 ||
      bytes.substr(0, kMagicSize) != absl::string_view(kMagic, kMagicSize)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a .npy file (bad magic)"));
  }
  const int major = static_cast<uint8_t>(bytes[kMagicSize]);
  if (major < 1 || major > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": unsupported .npy format version ", major,
        " (1.0 to 3.0 are read)"));
  }
  const int length_size = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + length_size;
  if (bytes.size() < header_start) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": truncated .npy header"));
  }
  const size_t header_length =
      ReadLittleEndian(bytes, kMagicSize + 2, length_size);
  if (bytes.size() < header_start + header_length) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": truncated .npy header (", header_length,
        " bytes announced, ", bytes.size() - header_start, " present)"));
  }
  ASSIGN_OR_RETURN(NpyHeader header,
                   HeaderReader(bytes.substr(header_start, header_length),
                                source)
                       .Read());
  if (header.fortran_order) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": fortran_order arrays are not supported (write C order)"));
  }
  ASSIGN_OR_RETURN(PrimitiveType type,
                   TypeForDescr(header.descr, u2_is_bf16, source));
  Shape shape = Shape::Array(type, header.shape);
  absl::StatusOr<int64_t> byte_size = shape.CheckedByteSize();
  if (!byte_size.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": .npy header: ", byte_size.status().message()));
  }
  absl::string_view data = bytes.substr(header_start + header_length);
  if (data.size() != static_cast<size_t>(*byte_size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": .npy data of ", shape.ToString(), " needs ", *byte_size,
        " bytes, the file has ", data.size()));
  }
  VLOG(3) << source << ": read " << shape.ToString();
  return Literal(std::move(shape),
                 std::vector<uint8_t>(data.begin(), data.end()));
}

}  // namespace

absl::StatusOr<Literal> ParseNpy(absl::string_view bytes,
                                 absl::string_view source_name) {
  return Parse(bytes, source_name, /*u2_is_bf16=*/false);
}

absl::StatusOr<Literal> ParseNpyWithBF16(absl::string_view bytes,
                                         absl::string_view source_name) {
  return Parse(bytes, source_name, /*u2_is_bf16=*/true);
}

std::string SerializeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  std::string dims = absl::StrJoin(shape.dimensions(), ", ");
  if (shape.rank() == 1) absl::StrAppend(&dims, ",");
  std::string header = absl::StrCat(
      "{'descr': '", primitive_util::NpyDescr(shape.element_type()),
      "', 'fortran_order': False, 'shape': (", dims, "), }");
  // Pad with spaces and a final newline so the data starts 64-byte aligned,
  // as NumPy does.
  const size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicSize);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(literal.bytes().data()),
             literal.bytes().size());
  return out;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(path));
  return ParseNpy(bytes, path);
}

absl::StatusOr<Literal> ReadNpyFileWithBF16(const std::string& path) {
  ASSIGN_OR_RETURN(std::string bytes, base::ReadFileToString(path));
  return ParseNpyWithBF16(bytes, path);
}

absl::Status WriteNpyFile(const std::string& path, const Literal& literal) {
  return base::WriteFileAtomically(path, SerializeNpy(literal));
}

}  // namespace xla_lite
