// `tinyenc tokenize`: show how a model's tokenizer cuts texts into pieces and ids, with each
// token's byte range in the text (a table, or JSON for scripts).
#include <unistd.h>

#include <tinyenc/encoding.h>
#include <tinyenc/text.h>
#include <tinyenc/tinyenc.h>
#include <tinyenc/tokenizer.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "json_text.h"
#include "line_reader.h"
#include "options.h"
#include "unknown_tokens.h"

namespace tinyenc::cli {
namespace {

struct TokenizeOptions {
  std::string model_dir;
  std::string tokenizer_file;
  bool json = false;
  bool no_special = false;
  InputOptions input;
};

struct Input {
  std::string label;  // "text 3", or "pair 2" with --pair
  std::string first;
  std::string second;
  bool is_pair = false;
  Encoding encoding;
  std::vector<size_t> unknown;  // positions of tokens the vocabulary does not know
};

// The texts in order: the arguments ("-" standing for standard input's lines), then -i FILE's.
std::vector<std::string> read_texts(const InputOptions& options) {
  std::vector<std::string> texts;
  const auto read_lines = [&](LineReader& reader) {
    for (std::string line; reader.next(line) == LineReader::Status::kLine;) {
      texts.push_back(line);
    }
  };
  bool from_stdin = options.file == "-";
  for (const std::string& text : options.texts) {
    if (text == "-") {
      from_stdin = true;
    } else {
      texts.push_back(text);
    }
  }
  if (!options.file.empty() && options.file != "-") {
    LineReader file(options.file);
    read_lines(file);
  }
  if (from_stdin) {
    LineReader standard_input(STDIN_FILENO, "standard input");
    read_lines(standard_input);
  }
  if (texts.empty()) throw UsageError("no input texts (give TEXT..., -i FILE or -)");
  return texts;
}

// The input bytes a token came from, or "" for a template token.
std::string source_text(const Input& input, size_t token) {
  const TokenSpan span = input.encoding.offsets[token];
  switch (input.encoding.sources[token]) {
    case TokenSource::kFirst:
      return input.first.substr(span.begin, span.end - span.begin);
    case TokenSource::kSecond:
      return input.second.substr(span.begin, span.end - span.begin);
    case TokenSource::kSpecial:
      break;
  }
  return "";
}

std::vector<Input> encode_all(const Tokenizer& tokenizer, const TokenizeOptions& options) {
  const std::vector<std::string> texts = read_texts(options.input);
  const UnknownToken unknown = UnknownToken::of(tokenizer);
  UnknownTally tally;
  const bool pair = options.input.pair;
  std::vector<Input> inputs;
  for (size_t i = 0; i < texts.size(); ++i) {
    Input input;
    input.label = (pair ? "pair " : "text ") + std::to_string(i + 1);
    input.first = texts[i];
    input.is_pair = pair;
    try {
      if (pair) {
        const auto [first, second] = split_pair(texts[i]);
        input.first = std::string(first);
        input.second = std::string(second);
        input.encoding = tokenizer.encode_pair(input.first, input.second, !options.no_special);
      } else {
        input.encoding = tokenizer.encode(input.first, !options.no_special);
      }
    } catch (const std::invalid_argument& error) {  // a --pair line without a tab
      throw std::invalid_argument(input.label + ": " + error.what());
    } catch (const Error& error) {  // a text that is not UTF-8
      if (error.kind() != Error::Kind::kBadInput) throw;
      throw Error(Error::Kind::kBadInput, input.label + ": " + error.what());
    }
    input.unknown = unknown_positions(input.encoding, unknown);
    std::vector<std::string> sources;
    for (size_t t : input.unknown) {
      sources.push_back(token_source(input.encoding, t, input.first, input.second));
    }
    tally.add(sources);
    inputs.push_back(std::move(input));
  }
  tally.warn(unknown);
  return inputs;
}

nlohmann::ordered_json to_json(const Tokenizer& tokenizer, const std::vector<Input>& inputs) {
  nlohmann::ordered_json out = {{"tokenizer", tokenizer.describe()},
                                {"inputs", nlohmann::ordered_json::array()}};
  for (const Input& input : inputs) {
    const Encoding& encoding = input.encoding;
    nlohmann::ordered_json item = {{"text", input.first}};
    if (input.is_pair) item["text_pair"] = input.second;
    nlohmann::ordered_json offsets = nlohmann::ordered_json::array();
    nlohmann::ordered_json sequence_ids = nlohmann::ordered_json::array();
    for (size_t i = 0; i < encoding.size(); ++i) {
      offsets.push_back({encoding.offsets[i].begin, encoding.offsets[i].end});
      const auto source = encoding.sources[i];
      sequence_ids.push_back(source == TokenSource::kSpecial
                                 ? nlohmann::ordered_json()
                                 : nlohmann::ordered_json(static_cast<int>(source)));
    }
    item["tokens"] = encoding.tokens;
    item["ids"] = encoding.ids;
    item["token_type_ids"] = encoding.token_type_ids;
    item["offsets"] = std::move(offsets);
    item["sequence_ids"] = std::move(sequence_ids);
    item["unknown"] = input.unknown;
    out["inputs"].push_back(std::move(item));
  }
  return out;
}

// Code points, as an approximation of the columns a token takes in a terminal.
size_t display_width(const std::string& text) {
  size_t width = 0;
  for (char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return width;
}

void print_table(const Tokenizer& tokenizer, const std::vector<Input>& inputs) {
  std::printf("tokenizer: %s\n", tokenizer.describe().c_str());
  for (const Input& input : inputs) {
    const Encoding& encoding = input.encoding;
    std::printf("\n%s, %zu tokens: %s", input.label.c_str(), encoding.size(),
                in_quotes(input.first).c_str());
    if (input.is_pair) std::printf(" + %s", in_quotes(input.second).c_str());
    std::printf("\n");
    const std::vector<std::string> tokens =
        marked_tokens(encoding, input.unknown, input.first, input.second);
    size_t token_width = 5;
    for (const std::string& token : tokens) {
      token_width = std::max(token_width, display_width(token));
    }
    std::printf("%5s %8s %s%-9s  %s%*s  %s\n", "#", "id", input.is_pair ? "type  " : "", "bytes",
                "token", static_cast<int>(token_width - 5), "", "text");
    for (size_t i = 0; i < encoding.size(); ++i) {
      const TokenSpan span = encoding.offsets[i];
      const bool special = encoding.sources[i] == TokenSource::kSpecial;
      const std::string bytes =
          special ? "" : std::to_string(span.begin) + "-" + std::to_string(span.end);
      std::string type;
      if (input.is_pair) type = std::to_string(encoding.token_type_ids[i]) + "     ";
      const std::string& token = tokens[i];
      std::printf("%5zu %8d %s%-9s  %s", i, encoding.ids[i], type.c_str(), bytes.c_str(),
                  token.c_str());
      if (!special) {
        std::printf("%*s  %s", static_cast<int>(token_width - display_width(token)), "",
                    in_quotes(source_text(input, i)).c_str());
      }
      std::printf("\n");
    }
  }
}

}  // namespace

RunCommand add_tokenize_command(CLI::App& root) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* command =
      root.add_subcommand("tokenize", "Split texts into tokens and ids with a model's tokenizer");
  auto* model = command->add_option(
      "-m,--model", options->model_dir,
      "Model folder: tokenizer.model (sentencepiece), else tokenizer.json, else vocab.txt");
  auto* file = command->add_option(
      "--tokenizer", options->tokenizer_file,
      "One tokenizer file: *.model (sentencepiece), *.json (tokenizer.json), else a vocab.txt");
  model->type_name("DIR");
  file->type_name("FILE");
  model->excludes(file);
  command->add_flag("--json", options->json,
                    "Print JSON: {\"inputs\": [{\"text\", \"tokens\", \"ids\", ..., "
                    "\"unknown\"}]}");
  command->add_flag("--no-special", options->no_special,
                    "Leave out the template's special tokens ([CLS] [SEP], <s> </s>)");
  add_input_options(*command, options->input);
  command->footer(
      "Tokens the vocabulary does not know get the unknown id (sentencepiece <unk>, WordPiece\n"
      "[UNK]): the table shows them as \u27e8unk:TEXT\u27e9 (TEXT: the input they stand for), "
      "JSON lists\ntheir positions in \"unknown\", and one warning line on stderr names them.");

  return [options]() -> int {
    if (options->model_dir.empty() && options->tokenizer_file.empty()) {
      throw UsageError(
          "tokenize needs a model folder (-m DIR) or a tokenizer file (--tokenizer FILE)");
    }
    const Tokenizer tokenizer = options->model_dir.empty()
                                    ? Tokenizer::load_file(options->tokenizer_file)
                                    : Tokenizer::load(options->model_dir);
    const std::vector<Input> inputs = encode_all(tokenizer, *options);
    if (options->json) {
      const std::string text = json_text(to_json(tokenizer, inputs));
      std::printf("%s\n", text.c_str());
    } else {
      print_table(tokenizer, inputs);
    }
    return 0;
  };
}

}  // namespace tinyenc::cli
