#include "xla_lite/tools/bench_report.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"

namespace xla_lite {
namespace {

bool IsCached(const std::string& mode) {
  return absl::StartsWith(mode, "cached_");
}

std::string Peers(const BenchResult& result, const BenchModel& model) {
  std::string rows;
  for (const BenchPeer& peer : result.peers()) {
    if (absl::StrCat(peer.model(), ":", peer.batch()) != model.config()) continue;
    absl::StrAppendFormat(&rows, "| | %s | %.1f | | | | | | |\n", peer.peer(),
                          peer.median_step_us());
  }
  return rows;
}

constexpr const char* kColors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd",
                                   "#ff7f0e", "#8c564b", "#17becf"};

}  // namespace

std::string BenchTable(const BenchResult& result) {
  std::string table = absl::StrFormat(
      "Device: %s (%s, runtime %s), xla_lite %s\n\n"
      "| model | mode | median us | p10 us | p90 us | first step us | "
      "updates/step | re-traces/step | copies/step |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      result.device(), result.platform(), result.runtime_version(),
      result.xla_lite_version());
  for (const BenchModel& model : result.models()) {
    for (const BenchMode& mode : model.modes()) {
      absl::StrAppendFormat(
          &table, "| %s | %s | %.1f | %.1f | %.1f | %.0f | %.2f | %.2f | %.2f |\n",
          model.name(), mode.mode(), mode.median_us(), mode.p10_us(),
          mode.p90_us(), mode.first_step_us(), mode.steady().updates(),
          mode.steady().traces(), mode.steady().parameter_copies());
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
      if (absl::StrCat(peer.model(), ":", peer.batch()) != model.config()) continue;
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
      add_legend(absl::StrFormat("%s %.1f us", mode.mode(), mode.median_us()),
                 c, false);
    }
    for (const BenchPeer& peer : result.peers()) {
      if (absl::StrCat(peer.model(), ":", peer.batch()) != model.config()) continue;
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
      const BenchCounters& c = mode.steady();
      std::string where = absl::StrCat(model.name(), "/", mode.mode());
      if (IsCached(mode.mode()) &&
          (c.records() != 0 || c.updates() != 0 || c.traces() != 0)) {
        violations.push_back(absl::StrFormat(
            "%s: steady state must not record, update or re-trace; got "
            "%g records, %g updates, %g re-traces per step",
            where, c.records(), c.updates(), c.traces()));
      }
      if (IsCached(mode.mode()) && mode.batch() == "fixed" &&
          c.parameter_copies() != 0) {
        violations.push_back(absl::StrFormat(
            "%s: a batch that never moves must not be copied; got %g "
            "parameter copies per step",
            where, c.parameter_copies()));
      }
      if (mode.mode() == "graphs" && mode.batch() == "moving" &&
          c.updates() < 1) {
        violations.push_back(absl::StrFormat(
            "%s: a moving batch without stabilization must update every "
            "step; got %g updates per step",
            where, c.updates()));
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
          if (old.mode() != mode.mode() || old.median_us() <= 0) continue;
          double ratio = mode.median_us() / old.median_us();
          if (ratio > 1 + tolerance) {
            regressions.push_back(absl::StrFormat(
                "%s/%s: median %.1f us vs baseline %.1f us (+%.0f%%)",
                model.name(), mode.mode(), mode.median_us(), old.median_us(),
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
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  auto status = google::protobuf::util::MessageToJsonString(result, &json, options);
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

absl::StatusOr<std::vector<BenchPeer>> ReadPeers(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::vector<BenchPeer> peers;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || absl::StrContains(line, "\"error\"")) continue;
    BenchPeer peer;
    auto status = google::protobuf::util::JsonStringToMessage(line, &peer, options);
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
