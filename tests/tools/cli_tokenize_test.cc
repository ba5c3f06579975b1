// `tinyenc tokenize` end to end: the table and JSON outputs, pairs and --no-special, and one
// line on stderr with exit code 2 for every kind of bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"

namespace {

// A folder that the tests of this file share, removed when the program exits.
const std::filesystem::path& scratch() {
  static const tinyenc::testing::TempFolder folder("tinyenc_cli_tokenize_test", "CliTokenize");
  return folder.path();
}

using Result = tinyenc::testing::ProgramResult;
using tinyenc::testing::count_lines;

// Runs the program with `arguments` (already shell-quoted), capturing stdout and stderr.
Result run(const std::string& arguments, const std::string& input = "") {
  return tinyenc::testing::run_program(TINYENC_BINARY, arguments, input);
}

std::string quote(const std::filesystem::path& path) { return tinyenc::testing::shell_quote(path); }

// A BERT folder of our own: vocab.txt (and nothing else), so these tests need no shared data.
std::filesystem::path bert_folder() {
  const std::filesystem::path dir = scratch() / "bert";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n"
                                      "un\n##aff\n##able\n.\n";
  return dir;
}

TEST(CliTokenize, TableShowsIdsPiecesAndBytes) {
  const Result result = run("tokenize -m " + quote(bert_folder()) + " 'The unaffable cat.'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("tokenizer: WordPiece, 12 tokens"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("text 1, 8 tokens: 'The unaffable cat.'"), std::string::npos);
  EXPECT_NE(result.out.find("    1        5 0-3        the     'The'"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("    3        9 6-9        ##aff   'aff'"), std::string::npos);
  EXPECT_NE(result.out.find("    7        3            [SEP]\n"), std::string::npos);
}

TEST(CliTokenize, UnknownTokensAreMarked) {
  // "dog" is in no vocabulary here: [UNK], shown with the text it stands for.
  const Result table = run("tokenize -m " + quote(bert_folder()) + " 'the dog sat'");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("    2        1 4-7        \u27e8unk:dog\u27e9  'dog'"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.err,
            "tinyenc: warning: 1 token in 1 of 1 text unknown to the vocabulary ([UNK], id 1): "
            "'dog'; the model sees them all as one token, so what it says of them is a guess\n");
  const Result json_result =
      run("tokenize --json -m " + quote(bert_folder()) + " 'the dog sat' 'the cat'");
  ASSERT_EQ(json_result.exit_code, 0) << json_result.err;
  const nlohmann::json document = nlohmann::json::parse(json_result.out);
  EXPECT_EQ(document["inputs"][0]["unknown"], nlohmann::json({2}));
  EXPECT_EQ(document["inputs"][0]["tokens"][2], "[UNK]");
  EXPECT_EQ(document["inputs"][1]["unknown"], nlohmann::json::array());
  EXPECT_NE(json_result.err.find("1 token in 1 of 2 texts"), std::string::npos) << json_result.err;
  EXPECT_EQ(run("tokenize -m " + quote(bert_folder()) + " 'the cat'").err, "");
}

TEST(CliTokenize, JsonHasOneInputPerText) {
  const Result result =
      run("tokenize --json --tokenizer " + quote(bert_folder() / "vocab.txt") + " 'the cat' sat");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  ASSERT_EQ(doc.at("inputs").size(), 2u);
  const nlohmann::json& first = doc["inputs"][0];
  EXPECT_EQ(first.at("text"), "the cat");
  EXPECT_EQ(first.at("tokens"), nlohmann::json({"[CLS]", "the", "cat", "[SEP]"}));
  EXPECT_EQ(first.at("ids"), nlohmann::json({2, 5, 6, 3}));
  EXPECT_EQ(first.at("token_type_ids"), nlohmann::json({0, 0, 0, 0}));
  EXPECT_EQ(first.at("offsets"), nlohmann::json({{0, 0}, {0, 3}, {4, 7}, {0, 0}}));
  EXPECT_EQ(first.at("sequence_ids"), nlohmann::json({nullptr, 0, 0, nullptr}));
  EXPECT_EQ(doc["inputs"][1].at("ids"), nlohmann::json({2, 7, 3}));
}

TEST(CliTokenize, PairsAndNoSpecial) {
  // A pair is one text with a tab between its halves, as in `run --pair` and a TSV line.
  Result result =
      run("tokenize --json --pair -m " + quote(bert_folder()) + " \"$(printf 'the cat\\tsat')\"");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  nlohmann::json doc = nlohmann::json::parse(result.out);
  ASSERT_EQ(doc.at("inputs").size(), 1u);
  EXPECT_EQ(doc["inputs"][0].at("text_pair"), "sat");
  EXPECT_EQ(doc["inputs"][0].at("ids"), nlohmann::json({2, 5, 6, 3, 7, 3}));
  EXPECT_EQ(doc["inputs"][0].at("token_type_ids"), nlohmann::json({0, 0, 0, 0, 1, 1}));

  result = run("tokenize --json --no-special -m " + quote(bert_folder()) + " 'the cat'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["inputs"][0].at("tokens"), nlohmann::json({"the", "cat"}));

  result = run("tokenize --pair -m " + quote(bert_folder()) + " -", "the cat\tsat\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("pair 1, 6 tokens: 'the cat' + 'sat'"), std::string::npos)
      << result.out;
}

TEST(CliTokenize, T5ModelAppendsEos) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const nlohmann::json expected = tinyenc::testing::read_json(testdata / "t5/expected.json");
  const nlohmann::json& item = expected.at("cases").at(0);
  ASSERT_EQ(item.at("model"), "t5_tokenizer_base.model");
  const Result result =
      run("tokenize --json --tokenizer " + quote(testdata / "t5/t5_tokenizer_base.model") + " '" +
          item.at("text").get<std::string>() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["inputs"][0].at("ids"), item.at("ids_with_eos"));
}

TEST(CliTokenize, TinyBertFolderUsesTokenizerJson) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const Result result =
      run("tokenize --json -m " + quote(testdata / "models/tiny_bert") + " 'The model is new.'");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json doc = nlohmann::json::parse(result.out);
  EXPECT_EQ(doc["inputs"][0].at("ids"), nlohmann::json({2, 74, 122, 75, 88, 42, 3}));
}

// Bad input: exit code 2, nothing on stdout, one line on stderr that says what was wrong.
void expect_bad_input(const std::string& arguments, const std::string& mentions) {
  const Result result = run(arguments);
  EXPECT_EQ(result.exit_code, 2) << arguments;
  EXPECT_EQ(result.out, "") << arguments;
  EXPECT_EQ(count_lines(result.err), 1) << arguments << ": " << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << arguments << ": " << result.err;
}

TEST(CliTokenize, BadInputExitsWithTwoAndOneLine) {
  const std::filesystem::path dir = scratch() / "bad";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "garbage.model") << "\x01\x02 not a model";
  std::ofstream(dir / "empty.txt") << "";
  std::ofstream(dir / "tokenizer.json") << R"({"model": {"type": "WordPiece", "vocab": [1]}})";
  std::ofstream(dir / "broken.json") << "{\"model\": ";
  const std::string bert = quote(bert_folder());

  expect_bad_input("tokenize hello", "-m DIR");
  expect_bad_input("tokenize -m " + bert, "no input texts");
  expect_bad_input("tokenize -m " + bert + " --tokenizer x hi", "excludes");
  expect_bad_input("tokenize -m " + quote(dir / "missing") + " hi", "missing: no such folder");
  expect_bad_input("tokenize -m " + quote(scratch()) + " hi", "no tokenizer.model, tokenizer.json");
  expect_bad_input("tokenize -m " + quote(dir) + " hi",
                   "tokenizer.json: model.vocab: expected an object");
  expect_bad_input("tokenize --tokenizer " + quote(dir / "garbage.model") + " hi",
                   "garbage.model: not a sentencepiece model");
  expect_bad_input("tokenize --tokenizer " + quote(dir / "empty.txt") + " hi",
                   "empty.txt: empty file");
  expect_bad_input("tokenize --tokenizer " + quote(dir / "broken.json") + " hi",
                   "broken.json: not valid JSON");
  expect_bad_input("tokenize --tokenizer " + quote(dir / "nothing.txt") + " hi",
                   "nothing.txt: no such file");
  expect_bad_input("tokenize -m " + bert + " ok \"$(printf 'bad\\377')\"",
                   "text 2: invalid UTF-8 at byte 3");
  expect_bad_input("tokenize --pair -m " + bert + " one two", "--pair: no tab");
}

// Errors about one input name it: the pair without a tab, the text that is not UTF-8.
TEST(CliTokenize, ErrorsNameTheInput) {
  const std::string bert = quote(bert_folder());
  expect_bad_input("tokenize --pair -m " + bert + " \"$(printf 'a\tb')\" two",
                   "pair 2: --pair: no tab between the two texts of 'two'");
  expect_bad_input("tokenize --pair -m " + bert + " \"$(printf 'a\tb\377')\"",
                   "pair 1: second text: invalid UTF-8 at byte 1");
}

}  // namespace
