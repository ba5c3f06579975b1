// What `tinyenc order` prints: a table per sentence with the models as rows, one JSON document
// with a result per reordering, or CSV with a row per reordering.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "order/measurement.h"

namespace tinyenc::cli::order {

struct Report {
  std::vector<std::string> model_names;  // as shown in tables and file names
  std::vector<std::string> model_paths;  // as given
  std::vector<std::string> model_pe;
  std::vector<Result> results;
  std::vector<std::vector<std::string>> labels;  // [model]: config.json's id2label
  std::vector<std::string> unknown_piece;        // [model]: "<unk>", "[UNK]"; "" without one
  bool compare = false;
  Unit unit = Unit::kWord;
  std::string perturbation;
};

// Models as rows, one table per sentence (or --compare pair).
std::string table(const Report& report, size_t sentence_count);
// {"results": [...]} with one result per line: readable, and still one JSON document.
std::string to_json(const Report& report);
std::string to_csv(const Report& report);

// Short names for tables and files: the folder's name, or the whole path when two folders share
// a name.
std::vector<std::string> model_names(const std::vector<std::filesystem::path>& dirs);

}  // namespace tinyenc::cli::order
