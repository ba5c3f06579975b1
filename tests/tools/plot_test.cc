// The SVG pictures: the writer escapes what it must and nothing else, each chart draws the
// number of shapes its data implies inside a document of the size it declares, the checker
// rejects what is not well-formed, `tinyenc pe --plot` writes figure 2 of the seed article and
// `tinyenc bench --plot` a point per measured row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tools/tinyenc/plot/attention_figure.h"
#include "tools/tinyenc/plot/axis.h"
#include "tools/tinyenc/plot/color.h"
#include "tools/tinyenc/plot/extrapolation_figure.h"
#include "tools/tinyenc/plot/heatmap.h"
#include "tools/tinyenc/plot/latency_figure.h"
#include "tools/tinyenc/plot/line_chart.h"
#include "tools/tinyenc/plot/position_encoding_figure.h"
#include "tools/tinyenc/plot/sensitivity_figures.h"
#include "tools/tinyenc/plot/shift_figure.h"
#include "tools/tinyenc/plot/svg.h"
#include "tools/tinyenc/plot/svg_check.h"
#include "tools/tinyenc/plot/text_metrics.h"

namespace {

using namespace tinyenc::plot;

std::vector<LatencyMeasurement> sweep(const std::vector<int64_t>& batches,
                                      const std::vector<int64_t>& threads);
int occurrences(const std::string& text, const std::string& what);

TEST(Svg, EscapesMarkupCharactersAndKeepsUtf8) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&apos;");
  EXPECT_EQ(xml_escape("我打你"), "我打你");
  EXPECT_EQ(xml_escape("tab\there\x01"), "tab\there ");  // C0 controls are not XML
}

TEST(Svg, NumbersHaveAtMostTwoDecimals) {
  EXPECT_EQ(svg_number(12.5), "12.5");
  EXPECT_EQ(svg_number(3.0), "3");
  EXPECT_EQ(svg_number(1.236), "1.24");
  EXPECT_EQ(svg_number(-0.001), "0");
  EXPECT_EQ(svg_number(-7.25), "-7.25");
  EXPECT_EQ(svg_number(std::numeric_limits<double>::quiet_NaN()), "0");
}

TEST(Svg, DocumentDeclaresItsSizeAndReadsBack) {
  SvgDocument svg(320, 200);
  svg.open_group("things");
  svg.rect(1, 2, 3, 4, "#ff0000", "cell", "a & b");
  svg.text(10, 20, "<我打你> & \"你打我\"", {.size = 12, .anchor = Anchor::kMiddle, .rotate = -90});
  svg.polyline({{0, 0}, {10, 10}}, "#000", 1, "series");
  svg.circle({5, 5}, 2, "#00f", "point");
  svg.close_group();
  const std::string document = svg.document();
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error << "\n" << document;
  EXPECT_EQ(check.width, 320);
  EXPECT_EQ(check.height, 200);
  EXPECT_EQ(check.count("cell"), 1);
  EXPECT_EQ(check.count("series"), 1);
  EXPECT_EQ(check.count("point"), 1);
  EXPECT_NE(check.text.find("<我打你> & \"你打我\""), std::string::npos);
  EXPECT_NE(check.text.find("a & b"), std::string::npos);
  EXPECT_NE(document.find("width=\"320\" height=\"200\" viewBox=\"0 0 320 200\""),
            std::string::npos);
}

TEST(Svg, UnbalancedGroupsAreProgrammingErrors) {
  SvgDocument svg(10, 10);
  EXPECT_THROW(svg.close_group(), std::logic_error);
  svg.open_group("open");
  EXPECT_THROW(svg.document(), std::logic_error);
  EXPECT_THROW(SvgDocument(0, 10), std::invalid_argument);
}

TEST(SvgCheck, RejectsWhatIsNotWellFormed) {
  const std::string head =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\" viewBox=\"0 0 10 20\">";
  EXPECT_TRUE(check_svg(head + "<g><rect class=\"cell\"/></g></svg>").ok());
  EXPECT_FALSE(check_svg(head + "<g></svg>").ok());                  // unclosed <g>
  EXPECT_FALSE(check_svg(head + "</g></svg>").ok());                 // stray close
  EXPECT_FALSE(check_svg(head + "<text>a & b</text></svg>").ok());   // bare &
  EXPECT_FALSE(check_svg(head + "<text>&nbsp;</text></svg>").ok());  // not an XML entity
  EXPECT_FALSE(check_svg(head + "<rect x=1/></svg>").ok());          // unquoted attribute
  EXPECT_FALSE(check_svg(head + "</svg><svg/>").ok());               // two roots
  EXPECT_FALSE(check_svg(head).ok());                                // never closed
  EXPECT_FALSE(check_svg("<html></html>").ok());
  EXPECT_FALSE(check_svg("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\">"
                         "</svg>")
                   .ok());  // no viewBox
  EXPECT_FALSE(check_svg("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10.5\" height=\"20\" "
                         "viewBox=\"0 0 10.5 20\"></svg>")
                   .ok());  // not whole pixels
  EXPECT_TRUE(check_svg("<?xml version=\"1.0\"?>\n<!-- c -->" + head + "&#x4e00;&#32;</svg>").ok());
  // A character reference must name a character XML allows: U+0014 is not one.
  EXPECT_FALSE(check_svg(head + "&#20;</svg>").ok());
}

TEST(TextMetrics, WideCharactersTakeTwoColumns) {
  EXPECT_EQ(display_columns("abc"), 3);
  EXPECT_EQ(display_columns("我打你"), 6);
  EXPECT_EQ(display_columns("a我"), 3);
  EXPECT_EQ(display_columns("\xff"), 1);  // invalid byte: one column
  EXPECT_DOUBLE_EQ(text_width("我", 10), 10);
  EXPECT_DOUBLE_EQ(text_width("ab", 10), 12);
  EXPECT_EQ(fit_text("short", 10, 100), "short");
  const std::string cut = fit_text("我打你我打你我打你", 10, 45);
  EXPECT_EQ(cut, "我打你\u2026");
  EXPECT_LE(text_width(cut, 10), 45);
}

TEST(TextMetrics, WrapBreaksAtSpacesAndBetweenChineseCharacters) {
  EXPECT_EQ(wrap_text("one two three", 10, 45), (std::vector<std::string>{"one two", "three"}));
  EXPECT_EQ(wrap_text("我打你你打我", 10, 30), (std::vector<std::string>{"我打你", "你打我"}));
  // Mixed: a Chinese run breaks anywhere, a Latin word only at its edges.
  EXPECT_EQ(wrap_text("我打你 Xiaoming", 10, 60), (std::vector<std::string>{"我打你", "Xiaoming"}));
  // A word wider than a line is broken between its characters, nothing dropped.
  EXPECT_EQ(wrap_text("abcdefghij", 10, 30), (std::vector<std::string>{"abcde", "fghij"}));
  EXPECT_EQ(wrap_text("short", 10, 300), (std::vector<std::string>{"short"}));
  EXPECT_TRUE(wrap_text("", 10, 300).empty());
  for (const std::string& line : wrap_text("the quick brown fox jumps over the lazy dog", 11, 80)) {
    EXPECT_LE(text_width(line, 11), 80) << line;
  }
}

// The words of `text` in order, as one string: wrapped lines come back together.
std::string joined_words(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\n') out += c;
  }
  return out;
}

TEST(Heading, LongTitlesWrapOntoMoreLinesAndAreNeverCut) {
  const std::string long_title =
      "A title far longer than the figure is wide, about word order and position encodings, "
      "which must not end in an ellipsis";
  const Heading short_heading{"Short", {"a note"}};
  const Heading long_heading{long_title, {"a note"}};
  EXPECT_GE(heading_height(long_heading, 400), heading_height(short_heading, 400) + 2 * 19);
  SvgDocument svg(420, 200);
  const double height = draw_heading(svg, 10, 10, 400, long_heading);
  EXPECT_DOUBLE_EQ(height, heading_height(long_heading, 400));
  const std::string document = svg.document();
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.text.find("\u2026"), std::string::npos);
  EXPECT_EQ(joined_words(check.text), joined_words(long_title + "a note"));
  EXPECT_GE(occurrences(document, "font-weight=\"bold\""), 3);  // the title's lines
}

TEST(Heading, FiguresWrapLongSubtitlesAndGrowToHoldThem) {
  const std::string long_note(40, 'w');
  std::string many_words;
  for (int i = 0; i < 40; ++i) many_words += "word" + std::to_string(i) + " ";
  const std::vector<ModelSensitivity> models = {{"order-rope", "rope", 0.12, {0, 0.05, 0.1}}};
  const SvgCheck plain = check_svg(draw_layer_distances(models, "3 sentences"));
  const SvgCheck wrapped = check_svg(draw_layer_distances(models, many_words, {many_words}));
  ASSERT_TRUE(plain.ok() && wrapped.ok());
  EXPECT_EQ(wrapped.width, plain.width);  // wrapped, not widened
  EXPECT_GE(wrapped.height, plain.height + 4 * 15);
  EXPECT_EQ(wrapped.text.find("\u2026"), std::string::npos);
  EXPECT_NE(joined_words(wrapped.text).find(joined_words(many_words)), std::string::npos);

  const SvgCheck latency = check_svg(draw_latency_figure(sweep({1}, {1}), many_words));
  ASSERT_TRUE(latency.ok()) << latency.error;
  EXPECT_EQ(latency.text.find("\u2026"), std::string::npos);
  EXPECT_NE(joined_words(latency.text).find(joined_words(many_words)), std::string::npos);
}

TEST(SvgCheck, FindsChineseTextWithoutAChineseFont) {
  const std::string open =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"20\" viewBox=\"0 0 10 20\"";
  const SvgCheck bare = check_svg(open +
                                  " font-family=\"sans-serif\"><text>我打你</text>"
                                  "<text>abc</text></svg>");
  ASSERT_TRUE(bare.ok()) << bare.error;
  EXPECT_EQ(bare.cjk_text_without_cjk_font, (std::vector<std::string>{"我打你"}));
  // Named by the text itself, or by an enclosing group.
  const SvgCheck own = check_svg(open +
                                 "><text font-family=\"'WenQuanYi Micro Hei'\">我</text>"
                                 "<g font-family=\"Noto Sans CJK SC, sans-serif\"><text>"
                                 "你</text></g><text>小明</text></svg>");
  ASSERT_TRUE(own.ok()) << own.error;
  EXPECT_EQ(own.cjk_text_without_cjk_font, (std::vector<std::string>{"小明"}));
  EXPECT_TRUE(has_cjk("a，b"));  // full-width punctuation
  EXPECT_FALSE(has_cjk("Xiaoming – \u00e9t\u00e9"));
  EXPECT_FALSE(names_cjk_font("sans-serif"));
  EXPECT_TRUE(names_cjk_font(kFontFamily));
}

TEST(SvgCheck, FindsTextDrawnOverTextOrALegend) {
  SvgDocument svg(400, 200);
  // "limit 64" is 8 characters of 10 px: about 48 px wide, 10.5 px tall from y - 8.
  svg.text(100, 50, "limit 64", {.size = 10});
  svg.text(140, 45, "legend", {.size = 11, .middle_baseline = true});  // over its end
  svg.text(200, 50, "apart", {.size = 10});                            // right of "legend"
  svg.text(100, 62, "below", {.size = 10});                            // 12 px lower
  // Centred on x, 18 px wide and 5 px above and below y: over "limit 64"'s top left.
  svg.text(100, 40, "mid", {.size = 10, .anchor = Anchor::kMiddle, .middle_baseline = true});
  // Turned -90 degrees about (20, 100): a column 20 - 8..20 + 2.5 wide from y 100 upwards.
  svg.text(20, 100, "vertical title", {.size = 10, .rotate = -90});
  svg.text(14, 60, "x", {.size = 10});  // inside the column
  svg.text(40, 60, "y", {.size = 10});  // right of it
  svg.polyline({{300, 100}, {330, 100}}, "#000", 2, "legend-line");
  svg.text(310, 102, "on the line", {.size = 10});
  const SvgCheck check = check_svg(svg.document());
  ASSERT_TRUE(check.ok()) << check.error;
  ASSERT_EQ(check.text_boxes.size(), 10u);
  EXPECT_DOUBLE_EQ(check.text_boxes[0].left, 100);
  EXPECT_DOUBLE_EQ(check.text_boxes[0].right, 100 + text_width("limit 64", 10));
  EXPECT_DOUBLE_EQ(check.text_boxes[0].top, 42);
  EXPECT_EQ(overlapping_text(check),
            (std::vector<std::string>{"limit 64 / legend", "limit 64 / mid", "vertical title / x",
                                      "legend line / on the line"}));
}

TEST(SvgCheck, EveryFigureNamesAChineseFontForItsChineseText) {
  // The root's font-family, as written: ' quotes inside the "-quoted attribute.
  SvgDocument svg(10, 10);
  svg.text(1, 1, "我打你");
  const std::string document = svg.document();
  EXPECT_NE(document.find("font-family=\"'Noto Sans CJK SC', 'WenQuanYi Micro Hei'"),
            std::string::npos);
  ASSERT_TRUE(check_svg(document).cjk_text_without_cjk_font.empty());

  std::vector<std::string> documents;
  const std::vector<ModelSensitivity> models = {{"模型-rope", "rope", 0.12, {0, 0.05, 0.1}},
                                                {"order-none", "none", 0, {0, 0, 0}}};
  documents.push_back(draw_sensitivity_summary(models, "句子: 我打你, 小明追小红"));
  documents.push_back(draw_layer_distances(models, "句子: 我打你", {"对齐: 按词"}));
  AttentionFigure attention;
  attention.title = "注意力";
  attention.heads = 1;
  attention.panels.push_back({"A: 我打你", {"我", "打", "你"}, std::vector<float>(9, 0.3f)});
  documents.push_back(draw_attention_figure(attention));
  PositionEncodingFigure pe;
  pe.title = "位置编码";
  pe.positions = 2;
  pe.d_model = 2;
  pe.values = {0, 1, 0.84f, 0.54f};
  pe.curves = {{0, "维度 0"}};
  documents.push_back(draw_position_encoding_figure(pe));
  auto rows = sweep({1}, {1});
  rows[0].model = "小模型";
  documents.push_back(draw_latency_figure(rows, "机器"));
  for (const std::string& figure : documents) {
    const SvgCheck check = check_svg(figure);
    ASSERT_TRUE(check.ok()) << check.error;
    EXPECT_TRUE(has_cjk(check.text));
    EXPECT_TRUE(check.cjk_text_without_cjk_font.empty()) << check.cjk_text_without_cjk_font[0];
  }
}

TEST(LineChart, SeriesAreToldApartByMarkerAndDash) {
  std::vector<Series> series;
  std::set<std::pair<int, std::string>> styles;
  for (const char* kind : {"none", "sinusoidal", "learned", "rope", "alibi", "relative"}) {
    Series one;
    one.name = kind;
    one.color = "#777777";  // the same colour: only marker and dash tell them apart
    const SeriesStyle style = position_encoding_style(kind);
    one.marker = style.marker;
    one.dash = style.dash;
    styles.insert({static_cast<int>(style.marker), style.dash});
    EXPECT_EQ(position_encoding_style(std::string(kind) + " bf16").dash, style.dash);
    one.points = {{1, 1}, {2, 2}, {3, 3}};  // every line on top of the others
    series.push_back(one);
  }
  EXPECT_EQ(styles.size(), 6u);  // six different markers, six different dashes
  std::set<std::string> dashes;
  for (const auto& style : styles) dashes.insert(style.second);
  EXPECT_EQ(dashes.size(), 6u);

  SvgDocument svg(500, 300);
  LineChartAxes axes;
  axes.label_line_ends = true;
  draw_line_chart(svg, {60, 20, 340, 240}, series, axes);
  std::vector<LegendEntry> legend;
  for (const Series& one : series) legend.push_back(legend_entry(one));
  draw_legend(svg, 420, 30, legend);
  const std::string document = svg.document();
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("series"), 6);
  EXPECT_EQ(check.count("point"), 6 * 3);
  EXPECT_EQ(check.count("legend-line"), 6);
  EXPECT_EQ(occurrences(document, "<circle"), 3 + 1);  // none's markers and its legend sample
  EXPECT_EQ(occurrences(document, "<polygon"), 5 * 3 + 5);
  for (const std::string& dash : dashes) {
    if (dash.empty()) continue;
    // The series' line and its legend sample.
    EXPECT_EQ(occurrences(document, "stroke-dasharray=\"" + dash + "\""), 2) << dash;
  }
  // The ends coincide: one direct label, the legend names the rest.
  EXPECT_EQ(occurrences(check.text, "sinusoidal"), 1 + 3);  // legend, tooltips
  EXPECT_EQ(occurrences(check.text, "none"), 1 + 3 + 1);    // legend, tooltips, end label
}

// The marker and dash each kind has in every figure: in the extrapolation and shift figures as in
// the line charts.
void expect_kind_styles(const std::string& document, const std::vector<std::string>& kinds) {
  for (const std::string& kind : kinds) {
    const std::string dash = position_encoding_style(kind).dash;
    if (dash.empty()) continue;
    // The series' line and its stretch in the legend or beside its label.
    EXPECT_EQ(occurrences(document, "stroke-dasharray=\"" + dash + "\""), 2) << kind << " " << dash;
  }
}

TEST(ExtrapolationFigure, MarkLabelsStayClearOfTheLegendAndOfEachOther) {
  ExtrapolationFigure figure;
  figure.subtitle = "外推: 336 sentences";
  figure.x_low = 9;
  figure.x_high = 64;
  for (const char* kind : {"alibi", "learned", "none", "relative", "rope", "sinusoidal"}) {
    AccuracyCurve curve;
    curve.name = std::string("order-") + kind;
    curve.position_encoding = kind;
    curve.points = {{12.5, 1}, {36.5, 0.5}, {60.5, 0.9}};
    curve.limit = 64;  // the plot's right edge, next to the legend
    curve.trained = 16;
    figure.curves.push_back(curve);
  }
  figure.curves[1].limit = 60;  // a second limit, too close to share a row with 64
  const std::string document = draw_extrapolation_figure(figure);
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_TRUE(check.cjk_text_without_cjk_font.empty());
  EXPECT_EQ(overlapping_text(check), std::vector<std::string>{});
  EXPECT_EQ(check.count("series"), 6);
  EXPECT_EQ(check.count("point"), 6 * 3);
  EXPECT_EQ(check.count("legend-line"), 6);
  expect_kind_styles(document, {"alibi", "learned", "none", "relative", "rope", "sinusoidal"});
  // The three marks' labels: above the plot, the two limits in two rows, inside its width.
  std::vector<TextBox> marks;
  for (const TextBox& box : check.text_boxes) {
    if (box.text.rfind("limit ", 0) == 0 || box.text.rfind("trained ", 0) == 0) {
      marks.push_back(box);
    }
  }
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks[0].text, "trained \u2264 16");
  EXPECT_EQ(marks[1].text, "limit 60");
  EXPECT_EQ(marks[2].text, "limit 64");
  EXPECT_LT(marks[2].bottom, marks[1].top);  // a row higher
  for (const TextBox& mark : marks) EXPECT_LE(mark.right, 80 + 480 + 0.01) << mark.text;

  // Two models of one kind are told apart.
  figure.curves[2].position_encoding = "alibi";
  const std::string twice = draw_extrapolation_figure(figure);
  EXPECT_EQ(
      occurrences(twice, "stroke-dasharray=\"" + position_encoding_style("alibi").dash + "\""), 2);
}

TEST(ShiftFigure, EachKindKeepsItsMarkerAndDash) {
  std::vector<ShiftCurve> curves;
  for (const char* kind : {"alibi", "learned", "none", "relative", "rope", "sinusoidal"}) {
    ShiftCurve curve;
    curve.name = std::string("order-") + kind;
    curve.position_encoding = kind;
    curve.offsets = {1, 2, 4, 8};
    const bool absolute =
        curve.position_encoding == "learned" || curve.position_encoding == "sinusoidal";
    curve.distances = {absolute ? 0.1 : 0.0, absolute ? 0.2 : 0.0, absolute ? 0.3 : 0.0,
                       absolute ? 0.25 : 0.0};
    curves.push_back(curve);
  }
  curves[1].distances.back() = std::nullopt;  // the learned table ends
  const std::string document = draw_shift_figure(curves, "句子: 我打你");
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_TRUE(check.cjk_text_without_cjk_font.empty());
  EXPECT_EQ(overlapping_text(check), std::vector<std::string>{});
  EXPECT_EQ(check.count("series"), 6);
  EXPECT_EQ(check.count("point"), 6 * 4 - 1);
  EXPECT_EQ(check.count("legend-line"), 6);
  expect_kind_styles(document, {"alibi", "learned", "none", "relative", "rope", "sinusoidal"});
  // none's circles: its four points and its label's; the other kinds draw polygons.
  EXPECT_EQ(occurrences(document, "<circle"), 4 + 1);
}

TEST(Color, ScalesHaveFixedEndsAndClamp) {
  EXPECT_EQ(sequential_color(0), "#fcfbfd");
  EXPECT_EQ(sequential_color(1), "#3f007d");
  EXPECT_EQ(sequential_color(7), "#3f007d");
  EXPECT_EQ(sequential_color(std::nan("")), "#bbbbbb");
  EXPECT_EQ(diverging_color(-1), "#2166ac");
  EXPECT_EQ(diverging_color(0), "#f7f7f7");
  EXPECT_EQ(diverging_color(1), "#b2182b");
  EXPECT_EQ(series_color(0), series_color(10));
  EXPECT_NE(position_encoding_color("none"), position_encoding_color("rope"));
}

TEST(Axis, NiceTicksFrameTheData) {
  const std::vector<double> ticks = nice_ticks(0, 1);
  ASSERT_EQ(ticks.size(), 6u);
  EXPECT_DOUBLE_EQ(ticks.front(), 0);
  EXPECT_NEAR(ticks[1], 0.2, 1e-12);  // double arithmetic: a few 1e-17 off, far below a step
  EXPECT_DOUBLE_EQ(ticks.back(), 1);
  const std::vector<double> small = nice_ticks(0, 0.013);
  EXPECT_LE(small.front(), 0);
  EXPECT_GE(small.back(), 0.013);
  const std::vector<double> flat = nice_ticks(0, 0);  // a single value still gets an axis
  EXPECT_LT(flat.front(), flat.back());
  EXPECT_EQ(tick_label(0.25, 0.05), "0.25");
  EXPECT_EQ(tick_label(40, 10), "40");
  EXPECT_EQ(tick_label(1.5e-4, 5e-5), "1.5e-04");
  EXPECT_EQ(tick_label(0, 5e-5), "0");
}

TEST(Heatmap, OneCellPerValue) {
  Heatmap heatmap;
  heatmap.rows = 3;
  heatmap.columns = 4;
  heatmap.values.assign(12, 0.5f);
  heatmap.color = sequential_color;
  heatmap.row_labels = {"我", "打", "你"};
  heatmap.column_labels = {"a", "b", "c", "a much longer label"};
  heatmap.tooltip = [](int64_t r, int64_t c, float) {
    return std::to_string(r) + "," + std::to_string(c);
  };
  SvgDocument svg(400, 300);
  draw_heatmap(svg, 100, 150, heatmap);
  const SvgCheck check = check_svg(svg.document());
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 12);
  EXPECT_NE(check.text.find("2,3"), std::string::npos);
  EXPECT_NE(check.text.find("我"), std::string::npos);
  EXPECT_GT(heatmap.column_label_height(), text_width("a much longer label", 11));  // rotated

  heatmap.values.pop_back();
  EXPECT_THROW(draw_heatmap(svg, 0, 0, heatmap), std::invalid_argument);
  heatmap.values.push_back(0);
  heatmap.row_labels.pop_back();
  EXPECT_THROW(draw_heatmap(svg, 0, 0, heatmap), std::invalid_argument);
}

// A [heads, T, T] block of softmax rows, each row a permutation of the same values.
std::vector<float> attention(int64_t heads, int64_t tokens) {
  std::vector<float> values;
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t q = 0; q < tokens; ++q) {
      for (int64_t k = 0; k < tokens; ++k) {
        values.push_back(static_cast<float>((q + k + h) % tokens + 1) /
                         static_cast<float>(tokens * (tokens + 1) / 2));
      }
    }
  }
  return values;
}

TEST(AttentionFigure, HeadsTimesPanelsOfTokenSquares) {
  AttentionFigure figure;
  figure.title = "order-none (pe none): attention of layer 1";
  figure.note = "rows: queries";
  figure.heads = 2;
  figure.panels.push_back({"A: 我打你", {"[CLS]", "我", "打", "你", "[SEP]"}, attention(2, 5)});
  figure.panels.push_back({"B: 你打我", {"[CLS]", "你", "打", "我", "[SEP]"}, attention(2, 5)});
  figure.panels.push_back(
      {"B in A's order", {"[CLS]", "我", "打", "你", "[SEP]"}, attention(2, 5)});
  const std::string document = draw_attention_figure(figure);
  const SvgCheck check = check_svg(document);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 2 * 3 * 5 * 5);
  EXPECT_GT(check.width, 600);
  EXPECT_GT(check.height, 2 * 100);
  EXPECT_NE(check.text.find("A: 我打你"), std::string::npos);
  EXPECT_NE(check.text.find("head 2"), std::string::npos);
  EXPECT_NE(check.text.find("[CLS] \u2192 你"), std::string::npos);  // a cell's tooltip

  figure.panels[1].probabilities.pop_back();
  EXPECT_THROW(draw_attention_figure(figure), std::invalid_argument);
  figure.panels.clear();
  EXPECT_THROW(draw_attention_figure(figure), std::invalid_argument);
}

TEST(AttentionFigure, APanelThatCannotBeDrawnSaysWhy) {
  AttentionFigure figure;
  figure.title = "t";
  figure.heads = 2;
  figure.panels.push_back({"A: the cat", {"[CLS]", "the", "cat", "[SEP]"}, attention(2, 4)});
  figure.panels.push_back({"B: tac eht", {"[CLS]", "[UNK]", "[UNK]", "[SEP]"}, attention(2, 4)});
  const double two_panels = check_svg(draw_attention_figure(figure)).width;
  figure.undrawn.push_back(
      {"B in A's token order",
       "Not drawn: B's tokens are not a rearrangement of A's (other pieces), so B's rows and "
       "columns cannot be put back in A's order."});
  const SvgCheck check = check_svg(draw_attention_figure(figure));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 2 * 2 * 4 * 4);  // the two matrices only
  EXPECT_NE(check.text.find("B in A's token order"), std::string::npos);
  // Wrapped into lines within the panel, every word kept.
  EXPECT_NE(check.text.find("Not drawn:"), std::string::npos) << check.text;
  EXPECT_NE(check.text.find("A's order."), std::string::npos) << check.text;
  EXPECT_GT(check.width, two_panels + 200);  // the column keeps its place
}

TEST(AttentionFigure, LongCaptionsWrap) {
  AttentionFigure figure;
  figure.title = "t";
  figure.heads = 1;
  figure.panels.push_back({"B: 小明被小红打了", {"a", "b"}, attention(1, 2)});
  const SvgCheck short_caption = check_svg(draw_attention_figure(figure));
  std::string long_text;
  for (int i = 0; i < 30; ++i) long_text += "word" + std::to_string(i) + " ";
  figure.panels[0].caption = long_text;
  const SvgCheck check = check_svg(draw_attention_figure(figure));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.text.find("\u2026"), std::string::npos);
  EXPECT_NE(joined_words(check.text).find(joined_words(long_text)), std::string::npos);
  EXPECT_LT(check.width, 600);                             // wrapped, not widened
  EXPECT_GE(check.height, short_caption.height + 3 * 17);  // the matrices move down
}

TEST(PositionEncodingFigure, CurvesAndACellPerValue) {
  PositionEncodingFigure figure;
  figure.title = "sinusoidal";
  figure.positions = 7;
  figure.d_model = 6;
  for (int64_t pos = 0; pos < 7; ++pos) {
    for (int64_t i = 0; i < 6; ++i) figure.values.push_back(std::sin(pos * (i + 1) * 0.3f));
  }
  figure.curves = {{0, "dim 0"}, {2, "dim 2"}, {4, "dim 4"}};
  const SvgCheck check = check_svg(draw_position_encoding_figure(figure));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 7 * 6);
  EXPECT_EQ(check.count("series"), 3);
  EXPECT_EQ(check.count("point"), 3 * 7);
  EXPECT_NE(check.text.find("dim 2"), std::string::npos);

  figure.curves = {{6, "out of range"}};
  EXPECT_THROW(draw_position_encoding_figure(figure), std::invalid_argument);
  figure.curves.clear();
  figure.positions = kMaxHeatmapCells;
  figure.values.assign(static_cast<size_t>(figure.positions * figure.d_model), 0.0f);
  EXPECT_THROW(draw_position_encoding_figure(figure), std::invalid_argument);
}

TEST(SensitivityFigures, ABarAndALinePerModel) {
  std::vector<ModelSensitivity> models = {
      {"order-none", "none", 1e-9, {0, 0, 0}},
      {"order-rope", "rope", 0.12, {0, 0.05, 0.1}},
      {"order-learned-with-a-long-name", "learned", 0.3, {0.2, 0.25, 0.3, 0.31}}};
  const SvgCheck summary = check_svg(draw_sensitivity_summary(models, "3 sentences"));
  ASSERT_TRUE(summary.ok()) << summary.error;
  EXPECT_EQ(summary.count("bar"), 3);
  EXPECT_NE(summary.text.find("order-rope"), std::string::npos);
  EXPECT_NE(summary.text.find("1.0e-09"), std::string::npos);  // tiny values stay readable

  const SvgCheck layers = check_svg(draw_layer_distances(models, "3 sentences"));
  ASSERT_TRUE(layers.ok()) << layers.error;
  EXPECT_EQ(layers.count("series"), 3);
  EXPECT_EQ(layers.count("point"), 3 + 3 + 4);

  // Notes go under the subtitle, wrapped; the figure grows in height to hold them.
  std::string note;
  for (int i = 0; i < 12; ++i) note += "a note long enough to wrap ";
  const SvgCheck noted = check_svg(draw_layer_distances(models, "3 sentences", {note, "two"}));
  ASSERT_TRUE(noted.ok()) << noted.error;
  EXPECT_NE(noted.text.find("a note long enough"), std::string::npos);
  EXPECT_NE(noted.text.find("two"), std::string::npos);
  EXPECT_GT(noted.height, layers.height + 30);
  EXPECT_EQ(noted.width, layers.width);
}

TEST(Axis, LogTicksAreOneTwoFiveAndFrameTheData) {
  EXPECT_EQ(log_ticks(0.3, 4.2), (std::vector<double>{0.2, 0.5, 1, 2, 5}));
  EXPECT_EQ(log_ticks(8, 128), (std::vector<double>{5, 10, 20, 50, 100, 200}));
  // Five decades of 1, 2 and 5 would be 16 ticks, too many: powers of ten alone.
  EXPECT_EQ(log_ticks(0.01, 1000), (std::vector<double>{0.01, 0.1, 1, 10, 100, 1000}));
  EXPECT_EQ(log_ticks(4, 4), (std::vector<double>{2, 5, 10}));  // one value: a factor 2 around
  EXPECT_EQ(log_tick_label(0.05), "0.05");
  EXPECT_EQ(log_tick_label(128), "128");
}

std::vector<LatencyMeasurement> sweep(const std::vector<int64_t>& batches,
                                      const std::vector<int64_t>& threads) {
  std::vector<LatencyMeasurement> rows;
  for (int64_t thread_count : threads) {
    for (const char* kind : {"none", "rope", "alibi"}) {
      for (int64_t batch : batches) {
        for (int64_t seq : {8, 32, 128}) {
          const double p50 = 0.01 * static_cast<double>(seq * batch) / thread_count;
          rows.push_back({"tiny", kind, batch, seq, thread_count, p50, 0.9 * p50, 1.5 * p50});
        }
      }
    }
  }
  return rows;
}

int occurrences(const std::string& text, const std::string& what) {
  int count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

TEST(LatencyFigure, ALinePerKindWithAWhiskerPerMeasurement) {
  const SvgCheck check = check_svg(draw_latency_figure(sweep({1}, {1}), "test machine"));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.width, 654);
  EXPECT_EQ(check.height, 415);  // a heading of a title and three notes, a row of panels
  // Batch 1: one forward pass is one sequence, and the figure says so.
  EXPECT_NE(check.text.find("latency per sequence (ms)"), std::string::npos) << check.text;
  EXPECT_NE(check.text.find("one forward pass of one sequence (batch 1)"), std::string::npos);
  EXPECT_EQ(check.count("panel"), 1);
  EXPECT_EQ(check.count("series"), 3);
  EXPECT_EQ(check.count("point"), 9);
  EXPECT_EQ(check.count("whisker"), 9);
  for (const char* kind : {"none", "rope", "alibi"}) {
    EXPECT_EQ(occurrences(check.text, std::string(kind) + ", seq "), 3) << kind;
  }
  // What the single panel holds fixed is said once, in the subtitle.
  EXPECT_NE(check.text.find("model tiny, batch 1, 1 thread"), std::string::npos) << check.text;
  EXPECT_NE(check.text.find("rope, seq 32: p50 0.32 ms (min 0.288, p99 0.48)"), std::string::npos)
      << check.text;
}

TEST(LatencyFigure, APanelPerBatchAndThreadCount) {
  const std::string two_document = draw_latency_figure(sweep({1, 4}, {1}), "");
  const SvgCheck two = check_svg(two_document);
  ASSERT_TRUE(two.ok()) << two.error;
  EXPECT_EQ(two.width, 1144);  // two columns
  EXPECT_EQ(two.height, 400);
  // Batch 4 takes about four times batch 1's time: the figure says the latency is the batch's.
  EXPECT_NE(two.text.find("latency per batch (ms)"), std::string::npos) << two.text;
  EXPECT_NE(two.text.find("not per sequence"), std::string::npos) << two.text;
  EXPECT_NE(two.text.find("the panels share both axes"), std::string::npos) << two.text;
  // One y scale: each panel labels the same y ticks (right-aligned texts), though batch 4's
  // values are four times batch 1's.
  const size_t second =
      two_document.find("<g class=\"panel\">", two_document.find("<g class=\"panel\">") + 1);
  ASSERT_NE(second, std::string::npos);
  const auto y_labels = [](const std::string& part) {
    std::vector<std::string> labels;
    for (size_t at = part.find("text-anchor=\"end\""); at != std::string::npos;
         at = part.find("text-anchor=\"end\"", at + 1)) {
      const size_t open = part.find('>', at) + 1;
      labels.push_back(part.substr(open, part.find('<', open) - open));
    }
    return labels;
  };
  const std::vector<std::string> first_labels = y_labels(two_document.substr(0, second));
  EXPECT_GE(first_labels.size(), 3u);
  EXPECT_EQ(first_labels, y_labels(two_document.substr(second)));
  EXPECT_EQ(two.count("panel"), 2);
  EXPECT_EQ(two.count("series"), 2 * 3);
  EXPECT_EQ(two.count("point"), 2 * 9);
  EXPECT_EQ(occurrences(two.text, "rope, batch 4, seq "), 3);
  EXPECT_NE(two.text.find("model tiny, 1 thread;"), std::string::npos) << two.text;

  const SvgCheck four = check_svg(draw_latency_figure(sweep({1, 4}, {1, 2}), ""));
  ASSERT_TRUE(four.ok()) << four.error;
  EXPECT_EQ(four.width, 1144);
  EXPECT_EQ(four.height, 720);  // two rows of 320 under the heading
  EXPECT_EQ(four.count("panel"), 4);
  EXPECT_EQ(four.count("series"), 4 * 3);
  EXPECT_EQ(four.count("whisker"), 4 * 9);
  EXPECT_EQ(occurrences(four.text, "alibi, batch 4, 2 threads, seq "), 3);
}

// `tinyenc pe --plot` and `tinyenc bench --plot` end to end, in a folder that these tests share,
// removed when the program exits.
const std::filesystem::path& scratch() {
  static const tinyenc::testing::TempFolder folder("tinyenc_plot_test", "CliPePlot");
  return folder.path();
}

using Result = tinyenc::testing::ProgramResult;
using tinyenc::testing::read_text;

Result run(const std::string& arguments) {
  return tinyenc::testing::run_program(TINYENC_BINARY, arguments);
}

TEST(CliPePlot, DrawsTheSeedTableInsteadOfPrintingIt) {
  const std::filesystem::path file = scratch() / "pe.svg";
  const Result result = run("pe --kind sinusoidal --d-model 4 --rows 3 --plot " + file.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Not the table: only the dot products behind the figure's second panel.
  EXPECT_EQ(result.out.rfind("\nPE(pos)\u00b7PE(pos+k) depends only on the offset k", 0), 0u)
      << result.out;
  EXPECT_EQ(result.out.find("dim0"), std::string::npos) << result.out;
  EXPECT_EQ(result.err, "");
  const SvgCheck check = check_svg(read_text(file));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 3 * 4);
  // d_model 4 has two frequencies: two curves; and a dot-product curve for each of pos 0, 10, 50.
  EXPECT_EQ(check.count("series"), 2 + 3);
  EXPECT_EQ(check.count("shift-panel"), 1);
  EXPECT_NE(check.text.find("pos 50"), std::string::npos);
  // The seed's hand-computed PE(1, 0) = sin(1) = 0.841 appears as a cell's value.
  EXPECT_NE(check.text.find("position 1, dim 0: 0.8415"), std::string::npos);
}

TEST(CliPePlot, JsonStillPrintsAndLargeTablesDraw) {
  const std::filesystem::path file = scratch() / "pe64.svg";
  const Result result = run("pe --d-model 64 --rows 100 --json --plot " + file.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.substr(0, 9), "{\"kind\": ");
  const SvgCheck check = check_svg(read_text(file));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.count("cell"), 64 * 100);
  EXPECT_EQ(check.count("series"), 3 + 3);
}

// The closed form of the seed article's property, computed here by hand: with
// w_i = 10000^(-2i/d), PE(p)·PE(p+k) = sum_{i<d/2} sin(p w_i) sin((p+k) w_i) + cos(p w_i) cos((p+k)
// w_i) = sum_{i<d/2} cos(k w_i), whatever p.
double sum_of_cosines(int64_t d_model, int64_t k) {
  double sum = 0;
  for (int64_t i = 0; i < d_model / 2; ++i) {
    sum += std::cos(static_cast<double>(k) / std::pow(10000.0, 2.0 * i / d_model));
  }
  return sum;
}

TEST(CliPePlot, SinusoidalDotProductsDependOnlyOnTheOffset) {
  for (const std::string layout : {"interleaved", "concat"}) {
    for (int64_t d_model : {16, 64}) {
      const Result result =
          run("pe --d-model " + std::to_string(d_model) + " --rows 120 --json --layout " + layout);
      ASSERT_EQ(result.exit_code, 0) << result.err;
      const nlohmann::json document = nlohmann::json::parse(result.out);
      const nlohmann::json& values = document["values"];
      ASSERT_EQ(values.size(), 120u);
      double largest_error = 0;
      for (int64_t pos : {0, 1, 10, 50}) {
        for (int64_t k : {0, 1, 2, 5, 10, 30, 64}) {
          double dot = 0;
          for (int64_t i = 0; i < d_model; ++i) {
            dot += values[pos][i].get<double>() * values[pos + k][i].get<double>();
          }
          EXPECT_NEAR(dot, sum_of_cosines(d_model, k), 1e-5)
              << layout << " d_model " << d_model << " pos " << pos << " k " << k;
          largest_error = std::max(largest_error, std::abs(dot - sum_of_cosines(d_model, k)));
        }
      }
      // Not a tolerance that anything passes: the dot products vary with k by whole units.
      EXPECT_GT(std::abs(sum_of_cosines(d_model, 0) - sum_of_cosines(d_model, 5)), 1.0);
      // The numbers pe prints for pos 0, 10 and 50 are those dot products too.
      const nlohmann::json& shift = document["shift_dot_products"];
      ASSERT_EQ(shift["positions"], nlohmann::json({0, 10, 50}));
      const nlohmann::json& offsets = shift["offsets"];
      ASSERT_GE(offsets.size(), 5u);
      for (size_t o = 0; o < offsets.size(); ++o) {
        const int64_t k = offsets[o].get<int64_t>();
        // Printed with 9 significant digits.
        EXPECT_NEAR(shift["sum_cos"][o].get<double>(), sum_of_cosines(d_model, k), 1e-7);
        for (size_t p = 0; p < 3; ++p) {
          EXPECT_NEAR(shift["dots"][p][o].get<double>(), sum_of_cosines(d_model, k), 1e-5)
              << "pos index " << p << " k " << k;
        }
      }
    }
  }
}

TEST(CliPePlot, TheTextTablePrintsTheDotProductsAfterThePositions) {
  const Result result = run("pe --d-model 4 --rows 3");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const size_t table = result.out.find("PE(pos)\u00b7PE(pos+k)");
  ASSERT_NE(table, std::string::npos) << result.out;
  EXPECT_LT(result.out.find("dim0"), table);
  // The row of k = 16: the three dot products, their spread and the closed form.
  const size_t row = result.out.find("\n     16 ", table);
  ASSERT_NE(row, std::string::npos) << result.out;
  double k = 0, pos0 = 0, pos10 = 0, pos50 = 0, spread = 0, closed = 0;
  ASSERT_EQ(std::sscanf(result.out.c_str() + row, "%lf %lf %lf %lf %lf %lf", &k, &pos0, &pos10,
                        &pos50, &spread, &closed),
            6);
  const double expected = std::cos(16.0) + std::cos(16.0 / 100.0);
  EXPECT_NEAR(pos0, expected, 2e-6);
  EXPECT_NEAR(pos10, expected, 2e-6);
  EXPECT_NEAR(pos50, expected, 2e-6);
  EXPECT_NEAR(closed, expected, 2e-6);
  EXPECT_LT(spread, 1e-5);
  // `none` has no such property to show.
  const Result none = run("pe --kind none --d-model 4 --rows 3");
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out.find("PE(pos)"), std::string::npos);
}

TEST(CliPePlot, BadRequestsExitWithTwo) {
  const std::filesystem::path file = scratch() / "never.svg";
  for (const std::string& arguments :
       {"pe --kind rope --d-model 4 --rows 3 --plot " + file.string(),
        "pe --d-model 512 --rows 1000 --plot " + file.string(),
        "pe --d-model 4 --rows 3 --plot " + (scratch() / "no/such/dir/x.svg").string()}) {
    const Result result = run(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments;
    EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

TEST(CliPePlot, BenchDrawsALinePerKindAndPrintsItsTable) {
  const std::filesystem::path file = scratch() / "bench.svg";
  const Result result =
      run("bench --config tiny --seq 4,8,16 --batch 1,2 --pe none,rope,alibi --repeat 5 --warmup 1 "
          "-f json --plot " +
          file.string());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json rows = nlohmann::json::parse(result.out)["rows"];
  ASSERT_EQ(rows.size(), 3u * 2 * 3);
  const SvgCheck check = check_svg(read_text(file));
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.width, 1144);  // a panel per batch size, side by side
  // A row of panels under the heading, whose first note (the CPU's name) may wrap.
  EXPECT_GE(check.height, 415);
  EXPECT_LE(check.height, 415 + 2 * 15);
  EXPECT_NE(check.text.find("latency per batch (ms)"), std::string::npos);
  EXPECT_EQ(check.count("series"), 2 * 3);
  EXPECT_EQ(check.count("point"), 18);
  EXPECT_EQ(check.count("whisker"), 18);
  // Each point is the row the table printed.
  for (const nlohmann::json& row : rows) {
    char expected[160];
    std::snprintf(expected, sizeof expected,
                  "%s, batch %lld, seq %lld: p50 %.4g ms (min %.4g, p99 %.4g)",
                  row["pe"].get<std::string>().c_str(), row["batch"].get<long long>(),
                  row["seq"].get<long long>(), row["p50_ms"].get<double>(),
                  row["min_ms"].get<double>(), row["p99_ms"].get<double>());
    EXPECT_NE(check.text.find(expected), std::string::npos) << expected;
  }
  for (const auto& entry : std::filesystem::directory_iterator(scratch())) {
    EXPECT_EQ(entry.path().filename().string().find("tinyenc-tmp"), std::string::npos)
        << entry.path();
  }
}

TEST(CliPePlot, BenchPlotNeedsAWritableFile) {
  for (const std::string& target : {std::string("-"), (scratch() / "no/such/dir/b.svg").string()}) {
    const Result result = run("bench --config tiny --seq 4 --repeat 1 --plot " + target);
    EXPECT_EQ(result.exit_code, 2) << target;
    EXPECT_EQ(result.out, "") << target;  // refused before measuring anything
    EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

}  // namespace
