#include "xla_lite/tools/bench_report.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"

namespace xla_lite {
namespace {

using gpu::ExecutionCounters;

// Modes whose temps and outputs come from the cache of stable allocations.
bool IsCached(BenchMode::Mode mode) {
  switch (mode) {
    case BenchMode::cached_copy:
    case BenchMode::cached_staged:
    case BenchMode::cached_fixed:
      return true;
    default:
      return false;
  }
}

// Both kinds of parameter copy: stabilization of a moved parameter, and
// protection of a borrowed aliased one.
double CopiesPerStep(const BenchMode& mode) {
  return SteadyPerStep(mode, &ExecutionCounters::stabilization_copies) +
         SteadyPerStep(mode, &ExecutionCounters::parameter_copies);
}

// A peer line names an MLP by its layers and batch ("48-96-80-12" and 24,
// as the model's config says), any other model by its folder's name.
bool PeerMeasures(const BenchPeer& peer, const BenchModel& model) {
  return peer.model() == model.name() ||
         absl::StrCat(peer.model(), ":", peer.batch()) == model.config();
}

std::string Peers(const BenchResult& result, const BenchModel& model) {
  std::string rows;
  for (const BenchPeer& peer : result.peers()) {
    if (!PeerMeasures(peer, model)) continue;
    absl::StrAppendFormat(&rows, "| | %s | %.1f | | | | | | |\n", peer.peer(),
                          peer.median_step_us());
  }
  return rows;
}

constexpr const char* kColors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#17becf"};

}  // namespace

const std::string& BenchModeName(BenchMode::Mode mode) {
  return BenchMode::Mode_Name(mode);
}

absl::StatusOr<BenchMode::Mode> ParseBenchMode(const std::string& name) {
  BenchMode::Mode mode;
  if (BenchMode::Mode_Parse(name, &mode) && mode != BenchMode::unknown) {
    return mode;
  }
  std::vector<std::string> names;
  const google::protobuf::EnumDescriptor* modes = BenchMode::Mode_descriptor();
  for (int i = 0; i < modes->value_count(); ++i) {
    if (modes->value(i)->number() == BenchMode::unknown) continue;
    names.push_back(modes->value(i)->name());
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown bench mode '", name, "'; the modes are ",
                   absl::StrJoin(names, ", ")));
}

void SetSteadyCounters(const ExecutionCounters& counters, int64_t steps,
                       BenchMode* mode) {
  double n = std::max<int64_t>(1, steps);
  for (const ExecutionCounters::Field& field : ExecutionCounters::Fields()) {
    int64_t value = counters.*field.value;
    if (value != 0) (*mode->mutable_steady())[field.name] = value / n;
  }
}

double SteadyPerStep(const BenchMode& mode,
                     int64_t ExecutionCounters::*counter) {
  auto it = mode.steady().find(std::string(ExecutionCounters::NameOf(counter)));
  return it == mode.steady().end() ? 0 : it->second;
}

std::string BenchTable(const BenchResult& result) {
  std::string table = absl::StrFormat(
      "Device: %s (%s, runtime %s), xla_lite %s\n\n"
      "| model | mode | median us | p10 us | p90 us | compile us | "
      "first step us | updates/step | re-traces/step | copies/step |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n",
      result.device(), result.platform(), result.runtime_version(),
      result.xla_lite_version());
  for (const BenchModel& model : result.models()) {
    for (const BenchMode& mode : model.modes()) {
      absl::StrAppendFormat(
          &table,
          "| %s | %s | %.1f | %.1f | %.1f | %.0f | %.0f | %.2f | %.2f | %.2f "
          "|\n",
          model.name(), BenchModeName(mode.mode()), mode.median_us(),
          mode.p10_us(), mode.p90_us(), mode.compile_us(),
          mode.first_step_us(),
          SteadyPerStep(mode, &ExecutionCounters::command_buffer_updates),
          SteadyPerStep(mode, &ExecutionCounters::command_buffer_traces),
          CopiesPerStep(mode));
    }
    table += Peers(result, model);
  }
  return table;
}

std::string BenchSvg(const BenchResult& result) {
  constexpr int kWidth = 760, kPanel = 260, kLeft = 70, kRight = 170, kTop = 30;
  const int plot_width = kWidth - kLeft - kRight;
  const int height = kTop + kPanel * std::max(1, result.models_size()) + 10;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%d\" y=\"18\" font-size=\"13\">xla_lite step time per step "
      "(log scale), %s</text>\n",
      kWidth, height, kLeft, result.device());
  for (int m = 0; m < result.models_size(); ++m) {
    const BenchModel& model = result.models(m);
    int top = kTop + m * kPanel, bottom = top + kPanel - 40;
    double lo = 1e300, hi = 0;
    size_t steps = 1;
    for (const BenchMode& mode : model.modes()) {
      for (double t : mode.step_us()) lo = std::min(lo, t), hi = std::max(hi, t);
      steps = std::max<size_t>(steps, mode.step_us_size());
    }
    for (const BenchPeer& peer : result.peers()) {
      if (!PeerMeasures(peer, model)) continue;
      lo = std::min(lo, peer.median_step_us());
      hi = std::max(hi, peer.median_step_us());
    }
    if (hi <= 0) continue;
    double l0 = std::floor(std::log10(std::max(lo, 1e-3)));
    double l1 = std::ceil(std::log10(hi));
    if (l1 <= l0) l1 = l0 + 1;
    auto y = [&](double t) {
      double f = (std::log10(std::max(t, 1e-3)) - l0) / (l1 - l0);
      return bottom - f * (bottom - top - 20);
    };
    auto x = [&](size_t i) {
      return kLeft + plot_width * (steps <= 1 ? 0.0 : double(i) / (steps - 1));
    };
    absl::StrAppendFormat(&svg,
                          "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s (%s)</text>\n"
                          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n"
                          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
                          kLeft, top + 12, model.name(), model.config(), kLeft,
                          bottom, kLeft + plot_width, bottom, kLeft, top + 20,
                          kLeft, bottom);
    for (double decade = l0; decade <= l1; ++decade) {
      absl::StrAppendFormat(
          &svg,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g us</text>\n",
          kLeft, y(std::pow(10, decade)), kLeft + plot_width,
          y(std::pow(10, decade)), kLeft - 4, y(std::pow(10, decade)) + 4,
          std::pow(10, decade));
    }
    absl::StrAppendFormat(&svg,
                          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">step</text>\n",
                          kLeft + plot_width / 2, bottom + 16);
    int legend = 0;
    auto add_legend = [&](const std::string& label, const char* color,
                          bool dashed) {
      int ly = top + 30 + 14 * legend++;
      absl::StrAppendFormat(
          &svg,
          "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
          "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>\n",
          kLeft + plot_width + 10, ly, kLeft + plot_width + 30, ly, color,
          dashed ? " stroke-dasharray=\"4,3\"" : "", kLeft + plot_width + 34,
          ly + 4, label);
    };
    int color = 0;
    for (const BenchMode& mode : model.modes()) {
      const char* c = kColors[color++ % 7];
      std::vector<std::string> points;
      for (int i = 0; i < mode.step_us_size(); ++i) {
        points.push_back(absl::StrFormat("%.1f,%.1f", x(i), y(mode.step_us(i))));
      }
      absl::StrAppendFormat(&svg,
                            "<polyline fill=\"none\" stroke=\"%s\" "
                            "stroke-width=\"1.2\" points=\"%s\"/>\n",
                            c, absl::StrJoin(points, " "));
      add_legend(absl::StrFormat("%s %.1f us", BenchModeName(mode.mode()),
                                 mode.median_us()),
                 c, false);
    }
    for (const BenchPeer& peer : result.peers()) {
      if (!PeerMeasures(peer, model)) continue;
      const char* c = kColors[color++ % 7];
      double py = y(peer.median_step_us());
      absl::StrAppendFormat(&svg,
                            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                            "stroke=\"%s\" stroke-dasharray=\"4,3\"/>\n",
                            kLeft, py, kLeft + plot_width, py, c);
      add_legend(absl::StrFormat("%s %.1f us", peer.peer(),
                                 peer.median_step_us()),
                 c, true);
    }
  }
  svg += "</svg>\n";
  return svg;
}

absl::Status CheckSteadyState(const BenchResult& result) {
  std::vector<std::string> violations;
  for (const BenchModel& model : result.models()) {
    for (const BenchMode& mode : model.modes()) {
      std::string where =
          absl::StrCat(model.name(), "/", BenchModeName(mode.mode()));
      double records =
          SteadyPerStep(mode, &ExecutionCounters::command_buffer_records);
      double updates =
          SteadyPerStep(mode, &ExecutionCounters::command_buffer_updates);
      double traces =
          SteadyPerStep(mode, &ExecutionCounters::command_buffer_traces);
      if (IsCached(mode.mode()) &&
          (records != 0 || updates != 0 || traces != 0)) {
        violations.push_back(absl::StrFormat(
            "%s: steady state must not record, update or re-trace; got "
            "%g records, %g updates, %g re-traces per step",
            where, records, updates, traces));
      }
      bool batch_stays = mode.mode() == BenchMode::cached_staged ||
                         mode.mode() == BenchMode::cached_fixed;
      if (batch_stays && CopiesPerStep(mode) != 0) {
        violations.push_back(absl::StrFormat(
            "%s: a batch that never moves must not be copied; got %g "
            "parameter copies per step",
            where, CopiesPerStep(mode)));
      }
      if (mode.mode() == BenchMode::graphs && updates < 1) {
        violations.push_back(absl::StrFormat(
            "%s: a moving batch without stabilization must update every "
            "step; got %g updates per step",
            where, updates));
      }
    }
  }
  if (violations.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "steady-state counters:\n  ", absl::StrJoin(violations, "\n  ")));
}

absl::Status CompareWithBaseline(const BenchResult& result,
                                 const BenchResult& baseline, double tolerance) {
  std::vector<std::string> regressions;
  for (const BenchModel& model : result.models()) {
    for (const BenchModel& base : baseline.models()) {
      if (base.name() != model.name()) continue;
      for (const BenchMode& mode : model.modes()) {
        for (const BenchMode& old : base.modes()) {
          if (old.mode() != mode.mode() || old.mode() == BenchMode::unknown ||
              old.median_us() <= 0) {
            continue;
          }
          double ratio = mode.median_us() / old.median_us();
          if (ratio > 1 + tolerance) {
            regressions.push_back(absl::StrFormat(
                "%s/%s: median %.1f us vs baseline %.1f us (+%.0f%%)",
                model.name(), BenchModeName(mode.mode()), mode.median_us(),
                old.median_us(),
                100 * (ratio - 1)));
          }
        }
      }
    }
  }
  if (regressions.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrFormat("step time regressed beyond %.0f%%:\n  %s",
                      100 * tolerance, absl::StrJoin(regressions, "\n  ")));
}

absl::StatusOr<std::string> BenchToJson(const BenchResult& result) {
  // Serialized deterministically (map entries sorted by key) and converted
  // from the wire format, as MessageToJsonString would from its own
  // unsorted serialization.
  std::string binary;
  {
    google::protobuf::io::StringOutputStream stream(&binary);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!result.SerializeToCodedStream(&coded)) {
      return absl::InternalError("cannot serialize the bench result");
    }
  }
  constexpr char kUrlPrefix[] = "type.googleapis.com";
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
      google::protobuf::util::NewTypeResolverForDescriptorPool(
          kUrlPrefix, google::protobuf::DescriptorPool::generated_pool()));
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::BinaryToJsonString(
      resolver.get(),
      absl::StrCat(kUrlPrefix, "/", BenchResult::descriptor()->full_name()),
      binary, &json, options);
  if (!status.ok()) return absl::InternalError(std::string(status.message()));
  return json;
}

absl::StatusOr<BenchResult> BenchFromJson(const std::string& json) {
  BenchResult result;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  auto status = google::protobuf::util::JsonStringToMessage(json, &result, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(std::string(status.message()));
  }
  return result;
}

absl::StatusOr<BenchResult> ReadBenchResult(const std::string& path) {
  ASSIGN_OR_RETURN(std::string json, base::ReadFileToString(path));
  absl::StatusOr<BenchResult> result = BenchFromJson(json);
  if (!result.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": ", result.status().message()));
  }
  return result;
}

absl::StatusOr<std::vector<BenchPeer>> ReadPeers(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, base::ReadFileToString(path));
  std::vector<BenchPeer> peers;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (line.empty() || absl::StrContains(line, "\"error\"")) continue;
    BenchPeer peer;
    auto status = google::protobuf::util::JsonStringToMessage(
        std::string(line), &peer, options);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s:%d: not a peer result: %s", path, number,
          std::string(status.message())));
    }
    peers.push_back(std::move(peer));
  }
  return peers;
}

}  // namespace xla_lite
