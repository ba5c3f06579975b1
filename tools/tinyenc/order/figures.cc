#include "order/figures.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "output.h"
#include "plot/attention_figure.h"

namespace tinyenc::cli::order {
namespace {

// Beyond this many tokens an attention matrix is no longer a readable picture.
constexpr size_t kMaxPlottedTokens = 64;

// The variant drawn next to the original: the one that moves units farthest (for swaps, the
// first and last unit; for 我打你 that is 你打我).
size_t plotted_variant(const Experiment& experiment) {
  size_t best = 0;
  long best_displacement = -1;
  for (size_t v = 0; v < experiment.variants.size(); ++v) {
    const std::vector<int>& order = experiment.variants[v].order;
    long displacement = 0;
    for (size_t k = 0; k < order.size(); ++k) displacement += std::abs(order[k] - long(k));
    if (displacement > best_displacement) {
      best = v;
      best_displacement = displacement;
    }
  }
  return best;
}

}  // namespace

std::string file_stem(const std::string& name) {
  std::string stem;
  for (char c : name) {
    const bool keep =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    stem += keep ? c : '_';
  }
  return stem.empty() ? "model" : stem;
}

void write_file(const std::filesystem::path& path, const std::string& content) {
  OutputSink sink(path.string());
  sink.write(content);
  sink.commit();
}

void plot_attention(MeasuredModel& model, const std::string& name, const Experiment& experiment,
                    const std::filesystem::path& file) {
  const Variant& variant = experiment.variants[plotted_variant(experiment)];
  const size_t tokens_a = experiment.encoding.size(), tokens_b = variant.encoding.size();
  if (std::max(tokens_a, tokens_b) > kMaxPlottedTokens) {
    std::fprintf(stderr, "tinyenc: warning: %s: %zu tokens, too many to draw the attention\n",
                 name.c_str(), std::max(tokens_a, tokens_b));
    return;
  }
  const ForwardOutput a = model.forward({&experiment.encoding}, true)[0];
  const ForwardOutput b = model.forward({&variant.encoding}, true)[0];
  const int64_t heads = model.heads();
  plot::AttentionFigure figure;
  figure.heads = heads;
  figure.title = name + " (pe " + model.position_encoding() + "): attention of layer 1, by head";
  figure.note =
      "rows: queries, columns: keys. Without position information B's matrices are A's with "
      "rows and columns permuted.";
  figure.panels.push_back(
      {"A: " + experiment.sentence.text, experiment.encoding.tokens, a.attentions[0]});
  figure.panels.push_back({"B: " + variant.text, variant.encoding.tokens, b.attentions[0]});
  if (variant.alignment) {
    // B's probabilities looked up through the alignment: row t, column u of A's order.
    const std::vector<size_t>& align = *variant.alignment;
    const size_t t_count = tokens_a;
    std::vector<float> back(static_cast<size_t>(heads) * t_count * t_count);
    for (size_t h = 0; h < static_cast<size_t>(heads); ++h) {
      for (size_t t = 0; t < t_count; ++t) {
        for (size_t u = 0; u < t_count; ++u) {
          back[(h * t_count + t) * t_count + u] =
              b.attentions[0][(h * t_count + align[t]) * t_count + align[u]];
        }
      }
    }
    figure.panels.push_back({"B in A's token order", experiment.encoding.tokens, std::move(back)});
  } else {
    std::string why = "Not drawn: B's tokens are not a rearrangement of A's (";
    if (tokens_a == tokens_b) {
      why.append("other pieces");
    } else {
      why.append("A has ").append(std::to_string(tokens_a)).append(" tokens, B ");
      why.append(std::to_string(tokens_b));
    }
    why.append(
        "), so B's rows and columns cannot be put back in A's order. The layer distances of this "
        "reordering compare mean hidden states.");
    figure.undrawn.push_back({"B in A's token order", why});
  }
  write_file(file, plot::draw_attention_figure(figure));
}

}  // namespace tinyenc::cli::order
