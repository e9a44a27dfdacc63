#include "xla_lite/hlo/hlo_collective_attributes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla_lite {

std::vector<std::string> CollectiveAttributeStrings(
    const CollectiveAttributes& attrs, bool is_permute) {
  std::vector<std::string> out;
  if (attrs.channel_id.has_value()) {
    out.push_back(absl::StrCat("channel_id=", *attrs.channel_id));
  }
  if (is_permute) {
    out.push_back(absl::StrCat(
        "source_target_pairs={",
        absl::StrJoin(attrs.source_target_pairs, ",",
                      [](std::string* s, const std::pair<int64_t, int64_t>& p) {
                        absl::StrAppend(s, "{", p.first, ",", p.second, "}");
                      }),
        "}"));
    return out;
  }
  out.push_back(absl::StrCat(
      "replica_groups={",
      absl::StrJoin(attrs.replica_groups, ",",
                    [](std::string* s, const std::vector<int64_t>& group) {
                      absl::StrAppend(s, "{", absl::StrJoin(group, ","), "}");
                    }),
      "}"));
  if (attrs.use_global_device_ids) {
    out.push_back("use_global_device_ids=true");
  }
  return out;
}

}  // namespace xla_lite
