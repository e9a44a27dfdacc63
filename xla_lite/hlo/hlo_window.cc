#include "xla_lite/hlo/hlo_window.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"

namespace xla_lite {
namespace {

absl::StatusOr<int64_t> ParseWindowInt(absl::string_view field,
                                       absl::string_view text) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value > kMaxWindowValue ||
      value < -kMaxWindowValue) {
    return absl::InvalidArgumentError(
        absl::StrCat("window field ", field, ": expected an integer within +-",
                     kMaxWindowValue, ", got '", text, "'"));
  }
  return value;
}

// "3x3" -> {3, 3}.
absl::StatusOr<std::vector<int64_t>> ParseXList(absl::string_view field,
                                                absl::string_view text) {
  std::vector<int64_t> values;
  for (absl::string_view part : absl::StrSplit(text, 'x')) {
    ASSIGN_OR_RETURN(int64_t value, ParseWindowInt(field, part));
    values.push_back(value);
  }
  return values;
}

// Sets one field of every dimension from its text; `dims` grows to the
// first field's length, later fields must match it.
absl::Status SetField(absl::string_view key, absl::string_view value,
                      Window* window) {
  std::vector<std::pair<int64_t, int64_t>> pads;
  std::vector<int64_t> values;
  if (key == "pad") {
    for (absl::string_view part : absl::StrSplit(value, 'x')) {
      std::vector<absl::string_view> lo_hi = absl::StrSplit(part, '_');
      if (lo_hi.size() != 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "window field pad: expected low_high per dimension, got '", part,
            "'"));
      }
      ASSIGN_OR_RETURN(int64_t lo, ParseWindowInt(key, lo_hi[0]));
      ASSIGN_OR_RETURN(int64_t hi, ParseWindowInt(key, lo_hi[1]));
      pads.emplace_back(lo, hi);
    }
  } else {
    ASSIGN_OR_RETURN(values, ParseXList(key, value));
  }
  const size_t count = key == "pad" ? pads.size() : values.size();
  if (window->empty()) window->resize(count);
  if (count != window->size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("window field ", key, ": expected ", window->size(),
                     " dimensions, got ", count, " ('", value, "')"));
  }
  for (size_t i = 0; i < count; ++i) {
    WindowDimension& dim = (*window)[i];
    if (key == "pad") {
      dim.padding_low = pads[i].first;
      dim.padding_high = pads[i].second;
      continue;
    }
    const int64_t v = values[i];
    if (key == "rhs_reversal") {
      if (v != 0 && v != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "window field rhs_reversal: expected 0 or 1, got ", v));
      }
      dim.window_reversal = v == 1;
      continue;
    }
    if (v < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "window field ", key, ": expected values >= 1, got ", v));
    }
    if (key == "size") dim.size = v;
    if (key == "stride") dim.stride = v;
    if (key == "lhs_dilate") dim.base_dilation = v;
    if (key == "rhs_dilate") dim.window_dilation = v;
  }
  return absl::OkStatus();
}

// One label string: which dimension holds `first`, `second` and each
// spatial digit.
struct Labels {
  int64_t first = -1;
  int64_t second = -1;
  std::vector<int64_t> spatial;
};

absl::StatusOr<Labels> ParseLabels(absl::string_view text, char first,
                                   char second, absl::string_view role) {
  Labels labels;
  const int64_t spatial_count = static_cast<int64_t>(text.size()) - 2;
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("dim_labels: ", role, " labels '", text, "' ", why,
                     " (expected ", std::string(1, first), ", ",
                     std::string(1, second), " and the digits 0..",
                     spatial_count - 1, " once each)"));
  };
  if (spatial_count < 0 || spatial_count > 10) return error("have no form");
  labels.spatial.assign(spatial_count, -1);
  for (int64_t pos = 0; pos < static_cast<int64_t>(text.size()); ++pos) {
    const char c = text[pos];
    int64_t* slot = nullptr;
    if (c == first) {
      slot = &labels.first;
    } else if (c == second) {
      slot = &labels.second;
    } else if (c >= '0' && c - '0' < spatial_count) {
      slot = &labels.spatial[c - '0'];
    } else {
      return error(absl::StrCat("have an unexpected label '",
                                std::string(1, c), "'"));
    }
    if (*slot != -1) {
      return error(absl::StrCat("repeat '", std::string(1, c), "'"));
    }
    *slot = pos;
  }
  if (labels.first == -1 || labels.second == -1) return error("lack a label");
  return labels;
}

std::string LabelString(int64_t first, char first_char, int64_t second,
                        char second_char, const std::vector<int64_t>& spatial) {
  std::string text(spatial.size() + 2, '?');
  if (first >= 0 && first < static_cast<int64_t>(text.size())) {
    text[first] = first_char;
  }
  if (second >= 0 && second < static_cast<int64_t>(text.size())) {
    text[second] = second_char;
  }
  for (size_t i = 0; i < spatial.size(); ++i) {
    if (spatial[i] >= 0 && spatial[i] < static_cast<int64_t>(text.size())) {
      text[spatial[i]] = static_cast<char>('0' + i);
    }
  }
  return text;
}

}  // namespace

absl::StatusOr<Window> ParseWindow(absl::string_view text) {
  Window window;
  absl::flat_hash_map<std::string, bool> seen;
  for (absl::string_view field :
       absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    std::vector<absl::string_view> key_value = absl::StrSplit(field, '=');
    static constexpr absl::string_view kKeys[] = {
        "size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal"};
    if (key_value.size() != 2 ||
        std::find(std::begin(kKeys), std::end(kKeys), key_value[0]) ==
            std::end(kKeys)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "window: expected size=, stride=, pad=, lhs_dilate=, rhs_dilate= "
          "or rhs_reversal=, got '",
          field, "'"));
    }
    if (!seen.emplace(std::string(key_value[0]), true).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("window: field ", key_value[0], " given twice"));
    }
    RETURN_IF_ERROR(SetField(key_value[0], key_value[1], &window));
  }
  if (!window.empty() && !seen.contains("size")) {
    return absl::InvalidArgumentError("window: expected a size= field");
  }
  return window;
}

std::string WindowToString(const Window& window) {
  auto field = [&](absl::string_view key, auto value_of, int64_t default_value,
                   std::vector<std::string>* fields) {
    bool all_default = true;
    for (const WindowDimension& d : window) {
      all_default = all_default && value_of(d) == default_value;
    }
    if (all_default && key != "size") return;
    fields->push_back(absl::StrCat(
        key, "=",
        absl::StrJoin(window, "x", [&](std::string* out, const WindowDimension& d) {
          absl::StrAppend(out, value_of(d));
        })));
  };
  std::vector<std::string> fields;
  if (window.empty()) return "";
  field("size", [](const WindowDimension& d) { return d.size; }, 1, &fields);
  field("stride", [](const WindowDimension& d) { return d.stride; }, 1,
        &fields);
  bool padded = false;
  for (const WindowDimension& d : window) {
    padded = padded || d.padding_low != 0 || d.padding_high != 0;
  }
  if (padded) {
    fields.push_back(absl::StrCat(
        "pad=", absl::StrJoin(window, "x",
                              [](std::string* out, const WindowDimension& d) {
                                absl::StrAppend(out, d.padding_low, "_",
                                                d.padding_high);
                              })));
  }
  field("lhs_dilate", [](const WindowDimension& d) { return d.base_dilation; },
        1, &fields);
  field("rhs_dilate",
        [](const WindowDimension& d) { return d.window_dilation; }, 1,
        &fields);
  field("rhs_reversal",
        [](const WindowDimension& d) { return d.window_reversal ? 1 : 0; }, 0,
        &fields);
  return absl::StrJoin(fields, " ");
}

absl::StatusOr<ConvolutionDimensionNumbers> ParseDimLabels(
    absl::string_view text) {
  std::vector<absl::string_view> arrow = absl::StrSplit(text, "->");
  std::vector<absl::string_view> operands;
  if (arrow.size() == 2) operands = absl::StrSplit(arrow[0], '_');
  if (arrow.size() != 2 || operands.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels: expected <lhs>_<rhs>-><output> (b01f_01io->b01f), got '",
        text, "'"));
  }
  ASSIGN_OR_RETURN(Labels lhs, ParseLabels(operands[0], 'b', 'f', "lhs"));
  ASSIGN_OR_RETURN(Labels rhs, ParseLabels(operands[1], 'i', 'o', "rhs"));
  ASSIGN_OR_RETURN(Labels out, ParseLabels(arrow[1], 'b', 'f', "output"));
  if (lhs.spatial.size() != rhs.spatial.size() ||
      lhs.spatial.size() != out.spatial.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim_labels: expected one number of spatial dimensions in lhs, rhs "
        "and output, got '",
        text, "'"));
  }
  ConvolutionDimensionNumbers dnums;
  dnums.input_batch_dimension = lhs.first;
  dnums.input_feature_dimension = lhs.second;
  dnums.input_spatial_dimensions = lhs.spatial;
  dnums.kernel_input_feature_dimension = rhs.first;
  dnums.kernel_output_feature_dimension = rhs.second;
  dnums.kernel_spatial_dimensions = rhs.spatial;
  dnums.output_batch_dimension = out.first;
  dnums.output_feature_dimension = out.second;
  dnums.output_spatial_dimensions = out.spatial;
  return dnums;
}

std::string DimLabelsToString(const ConvolutionDimensionNumbers& d) {
  return absl::StrCat(
      LabelString(d.input_batch_dimension, 'b', d.input_feature_dimension, 'f',
                  d.input_spatial_dimensions),
      "_",
      LabelString(d.kernel_input_feature_dimension, 'i',
                  d.kernel_output_feature_dimension, 'o',
                  d.kernel_spatial_dimensions),
      "->",
      LabelString(d.output_batch_dimension, 'b', d.output_feature_dimension,
                  'f', d.output_spatial_dimensions));
}

absl::StatusOr<int64_t> WindowedOutputSize(int64_t base_size,
                                           const WindowDimension& dim) {
  int64_t dilated_base = 0, padded = 0, dilated_window = 0;
  const bool overflow =
      base_size < 0 || dim.size < 1 || dim.stride < 1 ||
      dim.base_dilation < 1 || dim.window_dilation < 1 ||
      (base_size > 0 &&
       __builtin_mul_overflow(base_size - 1, dim.base_dilation,
                              &dilated_base)) ||
      __builtin_add_overflow(dilated_base, base_size > 0 ? 1 : 0,
                             &dilated_base) ||
      __builtin_add_overflow(dilated_base, dim.padding_low, &padded) ||
      __builtin_add_overflow(padded, dim.padding_high, &padded) ||
      __builtin_mul_overflow(dim.size - 1, dim.window_dilation,
                             &dilated_window);
  if (overflow) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window dimension over a base of ", base_size,
        " elements: sizes out of range (window ", WindowToString({dim}), ")"));
  }
  if (padded < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window dimension over a base of ", base_size,
        " elements: the padded base is negative (", padded, ", window ",
        WindowToString({dim}), ")"));
  }
  dilated_window += 1;
  if (dilated_window > padded) return 0;
  return (padded - dilated_window) / dim.stride + 1;
}

}  // namespace xla_lite
