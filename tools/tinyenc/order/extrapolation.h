// `tinyenc order --extrapolate FILE`: how a model's accuracy holds up on sentences longer than
// the ones it was trained on. FILE holds labelled sentences; each model tokenizes them with its
// own tokenizer, they are grouped by token count (the template's <s> </s> or [CLS] [SEP]
// included) into length buckets, and each bucket's accuracy is reported per model. A bucket
// holding a sentence longer than a model can run (the rows of a learned position table, or the
// max_position_embeddings the engine enforces for the other kinds) is "cannot" for that model:
// never a number, never an error that stops the other models.
#pragma once

#include <cstdint>
#include <filesystem>
#include <istream>

#include <optional>
#include <string>
#include <vector>
#include "line_reader.h"

namespace tinyenc::cli::order {

struct LabelledSentence {
  std::string text;
  std::string label;              // as in the models' id2label
  std::optional<int64_t> tokens;  // informational, as the file states it
  std::string origin;             // "FILE:3", for errors
};

// One JSON object a line: {"text": "...", "label": "...", "tokens": N (optional)}. Empty lines
// are skipped; anything else that is not such an object throws UsageError "NAME:LINE: field:
// problem". No lines at all is an error too.
std::vector<LabelledSentence> read_labelled_sentences(LineReader& in);

struct LengthBucket {
  int64_t low = 0, high = 0;  // token counts, both included
};

struct BucketAccuracy {
  int64_t sentences = 0;
  std::optional<int64_t> correct;  // nullopt: the model cannot run the bucket's sentences
  std::string cannot;              // why, when it cannot
};

struct ModelExtrapolation {
  std::string path, name, position_encoding;
  int64_t max_tokens = 0;                      // what the engine runs; 0: no limit
  std::optional<int64_t> training_max_tokens;  // from config.json, when it says
  std::vector<BucketAccuracy> buckets;         // one per ExtrapolationReport::buckets
};

struct ExtrapolationReport {
  std::string file;
  size_t sentences = 0;
  int64_t bucket_width = 1;
  std::vector<LengthBucket> buckets;  // only those holding a sentence for some model
  std::vector<ModelExtrapolation> models;
};

// The length buckets' width for token counts in [shortest, longest]: `asked` when > 0, else the
// smallest power of two giving at most 12 buckets.
int64_t choose_bucket_width(int64_t shortest, int64_t longest, int64_t asked);

// Runs every model on every sentence. Throws UsageError for a label a model does not have.
ExtrapolationReport measure_extrapolation(const std::vector<std::filesystem::path>& models,
                                          const std::vector<LabelledSentence>& sentences,
                                          const std::string& file, int64_t bucket,
                                          const std::string& dtype, int threads);

// Length buckets as rows, models as columns: "accuracy (correct/sentences)" or "cannot".
std::string extrapolation_table(const ExtrapolationReport& report);
std::string extrapolation_json(const ExtrapolationReport& report);
std::string extrapolation_csv(const ExtrapolationReport& report);

}  // namespace tinyenc::cli::order
