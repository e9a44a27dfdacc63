#include "xla_lite/hlo/hlo_collective_attribute_parser.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace xla_lite {
namespace {

// 'name' (the lexer gives the quotes as tokens of their own).
absl::StatusOr<std::string> ParseQuotedAxis(TokenCursor& cursor) {
  if (!cursor.At(TokenKind::kOther) || cursor.Peek().text != "'") {
    return cursor.ErrorAt(cursor.Peek(), "a quoted mesh axis name ('x')");
  }
  cursor.Next();
  ASSIGN_OR_RETURN(std::string name, cursor.ExpectName("mesh axis name"));
  if (!cursor.At(TokenKind::kOther) || cursor.Peek().text != "'") {
    return cursor.ErrorAt(cursor.Peek(), "\"'\" closing the axis name");
  }
  cursor.Next();
  return name;
}

struct MeshAxis {
  std::string name;
  int64_t size = 0;
  bool grouped = false;
};

// Devices are numbered row-major over the mesh; each group varies the
// named axes (in the order they are named) with the others fixed.
std::vector<std::vector<int64_t>> MeshGroups(
    const std::vector<MeshAxis>& axes, const std::vector<int64_t>& named) {
  std::vector<int64_t> strides(axes.size(), 1);
  for (int64_t i = static_cast<int64_t>(axes.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * axes[i + 1].size;
  }
  std::vector<int64_t> others;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (!axes[i].grouped) others.push_back(i);
  }
  auto linear_over = [&](const std::vector<int64_t>& dims, int64_t k) {
    int64_t offset = 0;
    for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i) {
      offset += (k % axes[dims[i]].size) * strides[dims[i]];
      k /= axes[dims[i]].size;
    }
    return offset;
  };
  int64_t group_count = 1, group_size = 1;
  for (int64_t d : others) group_count *= axes[d].size;
  for (int64_t d : named) group_size *= axes[d].size;
  std::vector<std::vector<int64_t>> groups(group_count);
  for (int64_t g = 0; g < group_count; ++g) {
    const int64_t base = linear_over(others, g);
    for (int64_t k = 0; k < group_size; ++k) {
      groups[g].push_back(base + linear_over(named, k));
    }
  }
  return groups;
}

// mesh['x'=2,'y'=2] {'x'}: the cursor is at "mesh".
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseMeshGroups(
    TokenCursor& cursor) {
  cursor.Next();
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLsquare, "'[' after mesh"));
  std::vector<MeshAxis> axes;
  do {
    const Token at = cursor.Peek();
    MeshAxis axis;
    ASSIGN_OR_RETURN(axis.name, ParseQuotedAxis(cursor));
    RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual, "'=' and the axis size"));
    ASSIGN_OR_RETURN(axis.size, cursor.ExpectInt("mesh axis size"));
    if (axis.size < 1) return cursor.ErrorAt(at, "a mesh axis size >= 1");
    for (const MeshAxis& other : axes) {
      if (other.name == axis.name) {
        return cursor.ErrorWithMessage(
            at, absl::StrCat("mesh axis '", axis.name, "' given twice"));
      }
    }
    axes.push_back(std::move(axis));
  } while (cursor.TryConsume(TokenKind::kComma));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRsquare, "',' or ']'"));
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLbrace, "'{' and the grouped axes"));
  std::vector<int64_t> named;
  if (!cursor.At(TokenKind::kRbrace)) {
    do {
      const Token at = cursor.Peek();
      ASSIGN_OR_RETURN(std::string name, ParseQuotedAxis(cursor));
      int64_t found = -1;
      for (size_t i = 0; i < axes.size(); ++i) {
        if (axes[i].name == name) found = i;
      }
      if (found < 0 || axes[found].grouped) {
        return cursor.ErrorWithMessage(
            at, absl::StrCat("replica_groups: axis '", name,
                             found < 0 ? "' is not in the mesh"
                                       : "' named twice"));
      }
      axes[found].grouped = true;
      named.push_back(found);
    } while (cursor.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRbrace, "',' or '}'"));
  return MeshGroups(axes, named);
}

// {{0,1},{2,3}} or {} (list form), or the mesh form.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroups(
    TokenCursor& cursor) {
  if (cursor.AtName("mesh")) return ParseMeshGroups(cursor);
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLbrace, "'{' or mesh[...]"));
  std::vector<std::vector<int64_t>> groups;
  if (!cursor.At(TokenKind::kRbrace)) {
    do {
      ASSIGN_OR_RETURN(std::vector<int64_t> group, cursor.ParseIntList());
      groups.push_back(std::move(group));
    } while (cursor.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRbrace, "',' or '}'"));
  return groups;
}

// {{0,1},{1,0}}
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ParsePairs(
    TokenCursor& cursor) {
  ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> lists,
                   ParseReplicaGroups(cursor));
  std::vector<std::pair<int64_t, int64_t>> pairs;
  for (const std::vector<int64_t>& list : lists) {
    if (list.size() != 2) {
      return cursor.ErrorAt(cursor.Peek(),
                            "source_target_pairs of two ids each");
    }
    pairs.emplace_back(list[0], list[1]);
  }
  return pairs;
}

// {key="value", ...}; a value that is not a string (a module's mesh
// table) is skipped.
absl::StatusOr<HloInstruction::FrontendAttributes> ParseFrontendAttributes(
    TokenCursor& cursor) {
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kLbrace, "'{'"));
  HloInstruction::FrontendAttributes attrs;
  if (!cursor.At(TokenKind::kRbrace)) {
    do {
      ASSIGN_OR_RETURN(std::string key,
                       cursor.ExpectName("frontend attribute name"));
      RETURN_IF_ERROR(cursor.Expect(TokenKind::kEqual, "'='"));
      if (cursor.At(TokenKind::kString)) {
        attrs.emplace_back(std::move(key), cursor.Next().text);
      } else {
        RETURN_IF_ERROR(cursor.SkipAttributeValue());
      }
    } while (cursor.TryConsume(TokenKind::kComma));
  }
  RETURN_IF_ERROR(cursor.Expect(TokenKind::kRbrace, "',' or '}'"));
  return attrs;
}

}  // namespace

absl::StatusOr<bool> ParseCollectiveAttribute(TokenCursor& cursor,
                                              const std::string& key,
                                              HloInstruction* instr) {
  const HloOpcode opcode = instr->opcode();
  CollectiveAttributes* attrs = instr->mutable_collective_attributes();
  if (opcode == HloOpcode::kCustomCall) {
    if (key == "custom_call_target") {
      if (!cursor.At(TokenKind::kString)) {
        return cursor.ErrorAt(cursor.Peek(), "a quoted custom call target");
      }
      instr->set_custom_call_target(cursor.Next().text);
      return true;
    }
    if (key == "frontend_attributes") {
      ASSIGN_OR_RETURN(auto frontend, ParseFrontendAttributes(cursor));
      instr->set_frontend_attributes(std::move(frontend));
      return true;
    }
    return false;
  }
  if (!IsCollective(opcode)) return false;
  const bool permute = opcode == HloOpcode::kCollectivePermute;
  if (key == "replica_groups" && !permute) {
    ASSIGN_OR_RETURN(attrs->replica_groups, ParseReplicaGroups(cursor));
  } else if (key == "source_target_pairs" && permute) {
    ASSIGN_OR_RETURN(attrs->source_target_pairs, ParsePairs(cursor));
  } else if (key == "channel_id") {
    ASSIGN_OR_RETURN(int64_t id, cursor.ExpectInt("channel id"));
    attrs->channel_id = id;
  } else if (key == "use_global_device_ids" && !permute) {
    if (!cursor.AtName("true") && !cursor.AtName("false")) {
      return cursor.ErrorAt(cursor.Peek(), "true or false");
    }
    attrs->use_global_device_ids = cursor.Next().text == "true";
  } else {
    return false;
  }
  return true;
}

}  // namespace xla_lite
