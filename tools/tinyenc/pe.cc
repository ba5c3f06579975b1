// `tinyenc pe`: print a position-encoding table (the seed article's hand-computed example is
// `tinyenc pe --kind sinusoidal --d-model 4 --rows 3`).
#include <tinyenc/position_encoding.h>
#include <tinyenc/position_encoding_table.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <numbers>
#include <string>
#include <vector>

#include "command.h"
#include "json_text.h"
#include "options.h"
#include "output.h"
#include "plot/position_encoding_figure.h"

namespace tinyenc::cli {
namespace {

struct PeOptions {
  std::string kind = "sinusoidal";
  int64_t d_model = 0;
  int64_t positions = 0;
  std::string layout = "interleaved";
  double base = 10000.0;
  OutputOptions output;
  int precision = 4;
  std::string plot;  // SVG file for the seed article's figure 2
};

// Beyond this the table is not something to print.
constexpr int64_t kMaxPrintedValues = int64_t{1} << 26;

// The seed article's property of the sinusoidal table: with w_i = base^(-2i/d_model),
//   PE(pos)·PE(pos+k) = sum_i sin(pos w_i) sin((pos+k) w_i) + cos(pos w_i) cos((pos+k) w_i)
//                     = sum_{i < d_model/2} cos(k w_i),
// a function of the offset k alone, whatever pos is (and whichever layout). Shown for a few
// starting positions, computed from the table the engine adds to the embeddings.
constexpr int64_t kShiftStarts[] = {0, 10, 50};
constexpr int64_t kMaxShiftOffset = 64;  // the figure's curves run over k = 0 .. this
constexpr int64_t kPrintedOffsets[] = {0, 1, 2, 3, 4, 8, 16, 32, 64};

struct ShiftDots {
  std::vector<double> dots;         // [starts, kMaxShiftOffset + 1], from the engine's table
  std::vector<double> closed_form;  // [kMaxShiftOffset + 1]: sum_i cos(k w_i)
  double dot(size_t start, int64_t k) const {
    return dots[start * (kMaxShiftOffset + 1) + static_cast<size_t>(k)];
  }
  // The largest difference between the starting positions at offset k.
  double spread(int64_t k) const {
    double low = dot(0, k), high = low;
    for (size_t s = 1; s < std::size(kShiftStarts); ++s) {
      low = std::min(low, dot(s, k));
      high = std::max(high, dot(s, k));
    }
    return high - low;
  }
};

// The kind's parameters the command has options for; the others keep their defaults.
PositionEncodingParameters table_parameters(const PositionEncodingDescription& kind,
                                            const PeOptions& options) {
  PositionEncodingParameters parameters;
  for (const ParameterDescription& parameter : kind.parameters) {
    if (parameter.name == "layout") {
      const std::vector<std::string>& choices = parameter.choices;
      if (std::find(choices.begin(), choices.end(), options.layout) == choices.end()) {
        throw UsageError("--layout: expected " + parameter.range + ", got '" + options.layout +
                         "'");
      }
      parameters.emplace_back(parameter.name, options.layout);
    }
    if (parameter.name == "base") {
      if (!std::isfinite(options.base) || options.base <= 1.0) {
        char given[32];
        std::snprintf(given, sizeof given, "%g", options.base);
        throw UsageError(std::string("--base ") + given + ": expected a finite number > 1");
      }
      parameters.emplace_back(parameter.name, options.base);
    }
  }
  return parameters;
}

// Called after table_for has validated the options (a sinusoidal kind, its layout and base).
ShiftDots shift_dot_products(const PeOptions& options) {
  const PositionEncodingParameters parameters =
      table_parameters(*find_position_encoding_description(options.kind), options);
  const int64_t d_model = options.d_model;
  ShiftDots result;
  for (int64_t start : kShiftStarts) {
    const std::vector<float> rows =
        position_encoding_table(options.kind, d_model, start, kMaxShiftOffset + 1, parameters);
    for (int64_t k = 0; k <= kMaxShiftOffset; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < d_model; ++i) {
        dot += static_cast<double>(rows[static_cast<size_t>(i)]) *
               static_cast<double>(rows[static_cast<size_t>(k * d_model + i)]);
      }
      result.dots.push_back(dot);
    }
  }
  for (int64_t k = 0; k <= kMaxShiftOffset; ++k) {
    double sum = 0;
    for (int64_t i = 0; i < d_model / 2; ++i) {
      sum += std::cos(
          static_cast<double>(k) *
          std::pow(options.base, -2.0 * static_cast<double>(i) / static_cast<double>(d_model)));
    }
    result.closed_form.push_back(sum);
  }
  return result;
}

bool has_shift_property(const PeOptions& options) { return options.kind == "sinusoidal"; }

void print_shift_table(const PeOptions& options, OutputSink& sink) {
  const ShiftDots shift = shift_dot_products(options);
  std::string out =
      "\nPE(pos)\u00b7PE(pos+k) depends only on the offset k: for every pos it is "
      "sum_{i<d_model/2} cos(k w_i), w_i = base^(-2i/d_model)\n      k";
  char cell[64];
  for (int64_t start : kShiftStarts) {
    std::snprintf(cell, sizeof cell, " %10s", ("pos=" + std::to_string(start)).c_str());
    out += cell;
  }
  out += "   spread(pos)  sum cos(k w_i)\n";
  double largest = 0;
  for (int64_t k = 0; k <= kMaxShiftOffset; ++k) largest = std::max(largest, shift.spread(k));
  for (int64_t k : kPrintedOffsets) {
    std::snprintf(cell, sizeof cell, "%7lld", static_cast<long long>(k));
    out += cell;
    for (size_t s = 0; s < std::size(kShiftStarts); ++s) {
      std::snprintf(cell, sizeof cell, " %10.6f", shift.dot(s, k));
      out += cell;
    }
    std::snprintf(cell, sizeof cell, "   %11.1e  %14.6f\n", shift.spread(k),
                  shift.closed_form[static_cast<size_t>(k)]);
    out += cell;
  }
  std::snprintf(cell, sizeof cell, "%.1e", largest);
  out += "largest spread over pos, k = 0.." + std::to_string(kMaxShiftOffset) + ": " + cell +
         " (float32 table)\n";
  sink.write(out);
}

std::vector<float> table_for(const PeOptions& options) {
  // float32 holds 9 significant digits: past 17 decimals printf only prints noise.
  check_range("--precision", int64_t{options.precision}, 0, 17);
  if (options.d_model <= 0 || options.d_model % 2 != 0) {
    throw UsageError("--d-model must be even and > 0, got " + std::to_string(options.d_model));
  }
  if (options.positions <= 0) {
    throw UsageError("--rows must be > 0, got " + std::to_string(options.positions));
  }
  if (options.positions > kMaxPrintedValues / options.d_model) {
    throw UsageError("--rows x --d-model is too large to print (limit " +
                     std::to_string(kMaxPrintedValues) + " values)");
  }
  const PositionEncodingDescription* kind = find_position_encoding_description(options.kind);
  if (!kind) {
    // "none, sinusoidal, ... or relative": every kind a config may name.
    const std::vector<const PositionEncodingDescription*>& kinds = position_encoding_descriptions();
    std::string names;
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (i > 0) names += i + 1 < kinds.size() ? ", " : " or ";
      names += kinds[i]->name;
    }
    throw UsageError("--kind: unknown position encoding '" + options.kind + "' (expected " + names +
                     ")");
  }
  if (!kind->fixed_table) {
    throw UsageError("--kind " + options.kind +
                     ": this encoding has no fixed table to print; it lives in a model's "
                     "weights or inside attention");
  }
  return position_encoding_table(options.kind, options.d_model, 0, options.positions,
                                 table_parameters(*kind, options));
}

// "none | sinusoidal": the kinds with a table to print.
std::string printable_kinds() {
  std::string kinds;
  for (const PositionEncodingDescription* kind : position_encoding_descriptions()) {
    if (!kind->fixed_table) continue;
    if (!kinds.empty()) kinds += " | ";
    kinds += kind->name;
  }
  return kinds;
}

void print_json(const PeOptions& options, const std::vector<float>& values, OutputSink& sink) {
  std::string out = "{\"kind\": \"" + options.kind + "\", ";
  if (options.kind == "sinusoidal") out += "\"layout\": \"" + options.layout + "\", ";
  out += "\"d_model\": " + std::to_string(options.d_model) +
         ", \"positions\": " + std::to_string(options.positions) + ", \"values\": [";
  for (int64_t pos = 0; pos < options.positions; ++pos) {
    out += pos ? ",\n  [" : "\n  [";
    for (int64_t i = 0; i < options.d_model; ++i) {
      if (i) out += ", ";
      out += float_text(values[static_cast<size_t>(pos * options.d_model + i)]);
    }
    out += "]";
  }
  out += "\n]";
  if (has_shift_property(options)) {
    // The numbers of print_shift_table: [start][offset] dot products and the closed form.
    const ShiftDots shift = shift_dot_products(options);
    const auto number = [](double value) {
      char text[32];
      std::snprintf(text, sizeof text, "%.9g", value);
      return std::string(text);
    };
    std::string offsets, positions, dots, closed_form;
    for (int64_t k : kPrintedOffsets) {
      offsets += (offsets.empty() ? "" : ", ") + std::to_string(k);
      closed_form +=
          (closed_form.empty() ? "" : ", ") + number(shift.closed_form[static_cast<size_t>(k)]);
    }
    for (size_t s = 0; s < std::size(kShiftStarts); ++s) {
      positions += (s ? ", " : "") + std::to_string(kShiftStarts[s]);
      std::string row;
      for (int64_t k : kPrintedOffsets) row += (row.empty() ? "" : ", ") + number(shift.dot(s, k));
      dots += (s ? ",\n    [" : "\n    [") + row + "]";
    }
    out += ",\n\"shift_dot_products\": {\"offsets\": [" + offsets + "], \"positions\": [" +
           positions + "],\n  \"dots\": [" + dots + "],\n  \"sum_cos\": [" + closed_form + "]}";
  }
  out += "}\n";
  sink.write(out);
}

void print_csv(const PeOptions& options, const std::vector<float>& values, OutputSink& sink) {
  std::string out = "position";
  for (int64_t i = 0; i < options.d_model; ++i) {
    out += ",dim";
    out += std::to_string(i);
  }
  out += "\n";
  for (int64_t pos = 0; pos < options.positions; ++pos) {
    out += std::to_string(pos);
    for (int64_t i = 0; i < options.d_model; ++i) {
      out += ',';
      out += float_text(values[static_cast<size_t>(pos * options.d_model + i)]);
    }
    out += "\n";
  }
  sink.write(out);
}

void print_table(const PeOptions& options, const std::vector<float>& values, OutputSink& sink) {
  const int width = options.precision + 4;
  std::string out =
      options.kind + " position encoding, d_model=" + std::to_string(options.d_model) + "\n  pos";
  char cell[64];
  for (int64_t i = 0; i < options.d_model; ++i) {
    std::snprintf(cell, sizeof cell, " %*s", width, ("dim" + std::to_string(i)).c_str());
    out += cell;
  }
  out += "\n";
  for (int64_t pos = 0; pos < options.positions; ++pos) {
    std::snprintf(cell, sizeof cell, "%5lld", static_cast<long long>(pos));
    out += cell;
    for (int64_t i = 0; i < options.d_model; ++i) {
      std::snprintf(cell, sizeof cell, " %*.*f", width, options.precision,
                    static_cast<double>(values[static_cast<size_t>(pos * options.d_model + i)]));
      out += cell;
    }
    out += "\n";
    sink.write(out);  // a row at a time: a large table is not held twice
    out.clear();
  }
}

// Figure 2 of the seed article: the sine of three frequencies, fast, middle and slow (periods
// 2*pi, 2*pi*base^(1/4) and 2*pi*base^(1/2) of the d_model/2 frequencies), over the positions,
// and the whole table as a heatmap.
void write_plot(const PeOptions& options, const std::vector<float>& values) {
  const int64_t pairs = options.d_model / 2;
  const bool interleaved = options.layout != "concat";
  plot::PositionEncodingFigure figure;
  figure.title = options.kind + " position encoding" +
                 (options.kind == "sinusoidal" ? " (" + options.layout + ")" : "") + ", d_model " +
                 std::to_string(options.d_model);
  figure.positions = options.positions;
  figure.d_model = options.d_model;
  figure.values = values;
  for (int64_t frequency : {int64_t{0}, pairs / 4, pairs / 2}) {
    const int64_t dimension = interleaved ? 2 * frequency : frequency;
    if (!figure.curves.empty() && figure.curves.back().dimension >= dimension) continue;
    char label[96];
    std::snprintf(label, sizeof label, "dim %lld: sin, period %.4g",
                  static_cast<long long>(dimension),
                  2 * std::numbers::pi *
                      std::pow(options.base, 2.0 * static_cast<double>(frequency) /
                                                 static_cast<double>(options.d_model)));
    figure.curves.push_back({dimension, label});
  }
  if (has_shift_property(options)) {
    const ShiftDots shift = shift_dot_products(options);
    figure.shift.starts.assign(std::begin(kShiftStarts), std::end(kShiftStarts));
    figure.shift.max_offset = kMaxShiftOffset;
    figure.shift.dots = shift.dots;
    double largest = 0, error = 0;
    for (int64_t k = 0; k <= kMaxShiftOffset; ++k) {
      largest = std::max(largest, shift.spread(k));
      for (size_t s = 0; s < std::size(kShiftStarts); ++s) {
        error =
            std::max(error, std::abs(shift.dot(s, k) - shift.closed_form[static_cast<size_t>(k)]));
      }
    }
    char note[200];
    std::snprintf(note, sizeof note,
                  "largest spread between the pos curves: %.1e; largest distance from "
                  "sum_{i<%lld} cos(k w_i): %.1e (float32 table)",
                  largest, static_cast<long long>(options.d_model / 2), error);
    figure.shift.note = note;
  }
  std::string svg;
  try {
    svg = plot::draw_position_encoding_figure(figure);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--plot: " + std::string(e.what()));
  }
  OutputSink sink(options.plot);
  sink.write(svg);
  sink.commit();
}

}  // namespace

RunCommand add_pe_command(CLI::App& root) {
  auto options = std::make_shared<PeOptions>();
  CLI::App* command = root.add_subcommand("pe", "Print a position-encoding table");
  command->add_option("--kind", options->kind, printable_kinds())->capture_default_str();
  command->add_option("--d-model", options->d_model, "Embedding width (even)")->required();
  // A row count, not `order --positions I,J` (which units to swap): named apart so that one flag
  // has one meaning; the old spelling still works.
  auto* rows = command->add_option("--rows", options->positions,
                                   "Number of positions, a row each (0 to N-1)");
  auto* positions = command->add_option("--positions", options->positions)->group("");
  rows->excludes(positions);
  command->add_option("--layout", options->layout, "Sinusoidal layout: interleaved | concat")
      ->capture_default_str();
  command->add_option("--base", options->base, "Sinusoidal base")->capture_default_str();
  command->add_option("--precision", options->precision, "Decimals in the text table")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  add_output_options(*command, options->output,
                     {OutputFormat::kText, OutputFormat::kJson, OutputFormat::kCsv});
  command->add_option("--plot", options->plot,
                      "Draw the table into an SVG FILE instead of printing it (curves of three "
                      "dimensions over the positions, for sinusoidal the dot products "
                      "PE(pos)\u00b7PE(pos+k) over k, and a heatmap; stdout gets only the dot "
                      "products; --json, --csv and -o still write the table)");
  return [options, rows, positions] {
    if (rows->count() == 0 && positions->count() == 0) throw UsageError("--rows is required");
    const OutputFormat format = options->output.format();
    const std::vector<float> values = table_for(*options);
    // Opened before the plot is written: a path that cannot be written fails first.
    OutputSink sink(options->output.path);
    if (!options->plot.empty()) write_plot(*options, values);
    if (format == OutputFormat::kJson) {
      print_json(*options, values, sink);
    } else if (format == OutputFormat::kCsv) {
      print_csv(*options, values, sink);
    } else if (options->plot.empty() || options->output.path != "-") {
      print_table(*options, values, sink);
      if (has_shift_property(*options)) print_shift_table(*options, sink);
    } else if (has_shift_property(*options)) {
      // The figure goes to its file; the numbers behind its dot-product panel are short enough
      // to print.
      print_shift_table(*options, sink);
    }
    sink.commit();
    return 0;
  };
}

}  // namespace tinyenc::cli
