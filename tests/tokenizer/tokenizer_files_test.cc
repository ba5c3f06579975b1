// Finding and reading tokenizer files: which file a model folder uses, what tokenizer.json and
// tokenizer_config.json change, and the one-line error for every kind of bad file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/io/quoted.h"
#include "tests/support/temp_folder.h"
#include "tests/support/test_data.h"
#include "tokenizer/load_tokenizer.h"
#include "tokenizer/tokenizer_json.h"

namespace tinyenc {
namespace {

using Tokens = std::vector<std::string>;
using Ids = std::vector<int32_t>;

const char* kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\nHello\n";

// A fresh folder per test, removed afterwards.
class TokenizerFiles : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& name, const std::string& contents) {
    std::ofstream(dir_ / name, std::ios::binary) << contents;
    return dir_ / name;
  }

  testing::TempFolder temp_{"tinyenc_tokenizer_files"};
  const std::filesystem::path& dir_ = temp_.path();
};

// The message of the std::invalid_argument `load` throws.
template <typename Load>
std::string error_of(Load load) {
  try {
    load();
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    return message;
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

std::string json_error(const std::string& json) {
  return error_of([&] { wordpiece_from_tokenizer_json(json, "tokenizer.json"); });
}

const char* kMinimalJson = R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}}})";

TEST_F(TokenizerFiles, FolderPrefersModelThenJsonThenVocab) {
  write("vocab.txt", kVocab);
  EXPECT_NE(load_tokenizer_from_folder(dir_)->describe().find("vocab.txt"), std::string::npos);
  write("tokenizer.json", kMinimalJson);
  EXPECT_NE(load_tokenizer_from_folder(dir_)->describe().find("tokenizer.json"), std::string::npos);
  write("tokenizer.model", "not a model");
  EXPECT_NE(error_of([&] { load_tokenizer_from_folder(dir_); }).find("tokenizer.model"),
            std::string::npos);
}

TEST_F(TokenizerFiles, ConfigTurnsLowerCasingOffAndRenamesTokens) {
  write("vocab.txt", kVocab);
  EXPECT_EQ(load_tokenizer_from_folder(dir_)->encode("Hello").tokens,
            (Tokens{"[CLS]", "hello", "[SEP]"}));
  write("tokenizer_config.json",
        R"({"do_lower_case": false, "cls_token": {"content": "[SEP]"}, "sep_token": "[CLS]"})");
  const auto tokenizer = load_tokenizer_from_folder(dir_);
  EXPECT_EQ(tokenizer->encode("Hello").tokens, (Tokens{"[SEP]", "Hello", "[CLS]"}));
  EXPECT_EQ(tokenizer->special_ids().cls, 3);
}

TEST_F(TokenizerFiles, MissingEmptyAndGarbageFilesNameTheFile) {
  const std::string missing = (dir_ / "nothing").string();
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_ / "nothing"); }),
            missing + ": no such folder");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            dir_.string() + ": no tokenizer.model, tokenizer.json or vocab.txt in this folder");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(dir_ / "vocab.txt"); }),
            (dir_ / "vocab.txt").string() + ": no such file");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(write("vocab.txt", "")); }),
            (dir_ / "vocab.txt").string() + ": empty file");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(write("vocab.txt", "a\nb\n")); }),
            (dir_ / "vocab.txt").string() + ": the unknown token '[UNK]' is not in the vocabulary");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(write("vocab.txt", "[UNK]\nx\xFFy\n")); }),
            (dir_ / "vocab.txt").string() + ": line 2: invalid UTF-8 at byte 1");
  const std::string model_error =
      error_of([&] { load_tokenizer_file(write("m.model", "\x01\x02garbage")); });
  EXPECT_EQ(model_error.rfind((dir_ / "m.model").string() + ": not a sentencepiece model", 0), 0u)
      << model_error;
  EXPECT_EQ(error_of([&] { load_tokenizer_file(dir_); }),
            dir_.string() + ": is a folder, not a file");
}

TEST_F(TokenizerFiles, BadConfigNamesTheField) {
  write("vocab.txt", kVocab);
  write("tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            (dir_ / "tokenizer_config.json").string() +
                ": do_lower_case: expected true or false, found string");
}

// A device or a folder in a tokenizer file's place is refused by name, never read nor skipped for
// the next candidate. /dev/null stands for every device: /dev/zero would fill the memory should
// the check ever go. (FIFOs would hang instead: tests/tools/cli_hostile_files_test.cc runs those
// under a timeout.)
TEST_F(TokenizerFiles, FilesThatAreNotRegularAreRefused) {
  std::filesystem::create_symlink("/dev/null", dir_ / "vocab.txt");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(dir_ / "vocab.txt"); }),
            (dir_ / "vocab.txt").string() + ": not a regular file");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            (dir_ / "vocab.txt").string() + ": not a regular file");
  std::filesystem::create_directory(dir_ / "tokenizer.json");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            (dir_ / "tokenizer.json").string() + ": is a folder, not a file");
}

TEST_F(TokenizerFiles, ConfigThatIsNotRegularIsRefusedNotSkipped) {
  write("vocab.txt", kVocab);
  std::filesystem::create_symlink("/dev/null", dir_ / "tokenizer_config.json");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            (dir_ / "tokenizer_config.json").string() + ": not a regular file");
}

TEST_F(TokenizerFiles, SymbolicLinkLoopsSayWhat) {
  std::filesystem::create_symlink("loop", dir_ / "loop");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_ / "loop"); }),
            (dir_ / "loop").string() + ": Too many levels of symbolic links");
  EXPECT_EQ(error_of([&] { load_tokenizer_file(dir_ / "loop"); }),
            (dir_ / "loop").string() + ": cannot open: Too many levels of symbolic links");
  // A loop where the folder's first tokenizer file should be: named, not passed over.
  write("vocab.txt", kVocab);
  std::filesystem::create_symlink("tokenizer.model", dir_ / "tokenizer.model");
  EXPECT_EQ(error_of([&] { load_tokenizer_from_folder(dir_); }),
            (dir_ / "tokenizer.model").string() + ": Too many levels of symbolic links");
}

TEST_F(TokenizerFiles, RepeatedJsonKeysAreRefused) {
  const std::string tokenizer_json =
      R"({"model": {"type": "WordPiece", "unk_token": "[UNK]",
                    "vocab": {"[UNK]": 0, "hello": 1, "hello": 2}}})";
  EXPECT_EQ(
      error_of([&] { load_tokenizer_file(write("tokenizer.json", tokenizer_json)); }),
      (dir_ / "tokenizer.json").string() + ": model.vocab: key 'hello' appears more than once");
  write("vocab.txt", kVocab);
  write("tokenizer_config.json", R"({"do_lower_case": false, "do_lower_case": true})");
  EXPECT_EQ(
      error_of([&] { load_tokenizer_file(dir_ / "vocab.txt"); }),
      (dir_ / "tokenizer_config.json").string() + ": key 'do_lower_case' appears more than once");
}

TEST(InQuotes, KeepsMessagesOnOneLine) {
  EXPECT_EQ(in_quotes("a\nb\tc\x01"), "'a\\nb\\tc\\x01'");
  const std::string long_text = std::string(59, 'x') + "é and more";  // é: bytes 59-60
  EXPECT_EQ(in_quotes(long_text), "'" + std::string(59, 'x') + "'...");
}

TEST(TokenizerJson, ErrorsNameTheField) {
  EXPECT_EQ(json_error("{\"model\": "),
            "tokenizer.json: not valid JSON: parse error at line 1, column 11: syntax error while "
            "parsing value - unexpected end of input; expected '[', '{', or a literal");
  EXPECT_EQ(json_error("[1]"), "tokenizer.json: expected a JSON object");
  EXPECT_EQ(json_error("{\"a\": 1e999}"),
            "tokenizer.json: not valid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(json_error("{}"), "tokenizer.json: missing field 'model'");
  EXPECT_EQ(json_error(R"({"model": {"type": "BPE", "vocab": {}}})"),
            "tokenizer.json: model.type: model 'BPE' is not supported: tinyenc reads WordPiece "
            "tokenizer.json files, and sentencepiece models from tokenizer.model");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {"a": -1}}})"),
            "tokenizer.json: model.vocab['a']: integer -1 is out of range 0..2147483647");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {"a": 0, "b": 0}}})"),
            "tokenizer.json: model.vocab['b']: token id 0 is given to both 'a' and 'b'");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": []}})"),
            "tokenizer.json: model.vocab: expected an object, found array");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {}}})"),
            "tokenizer.json: model.vocab: empty vocabulary");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})"),
            "tokenizer.json: the unknown token '[UNK]' is not in the vocabulary");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}},
                           "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}]}})"),
            "tokenizer.json: normalizer.normalizers[0].type: normalizer 'NFKC' is not supported "
            "(BertNormalizer, Lowercase, StripAccents, NFD, Sequence)");
  EXPECT_EQ(json_error(R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}},
                           "post_processor": {"type": "BertProcessing", "cls": ["[CLS]"]}})"),
            "tokenizer.json: post_processor.cls: expected at least 2 elements");
}

TEST(TokenizerJson, TemplateAndAddedTokens) {
  const auto tokenizer = wordpiece_from_tokenizer_json(R"({
    "added_tokens": [{"id": 3, "content": "<x>", "special": true}],
    "normalizer": {"type": "BertNormalizer", "lowercase": false},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<x>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
               {"SpecialToken": {"id": "<x>", "type_id": 1}}],
      "special_tokens": {"<x>": {"id": "<x>", "ids": [3], "tokens": ["<x>"]}}},
    "model": {"type": "WordPiece", "unk_token": "<u>", "continuing_subword_prefix": "++",
              "vocab": {"<u>": 0, "Ab": 1, "++c": 2}}})",
                                                       "t.json");
  EXPECT_EQ(tokenizer->vocab_size(), 4);
  EXPECT_EQ(tokenizer->encode("Abc<x>ab").tokens, (Tokens{"<x>", "Ab", "++c", "<x>", "<u>"}));
  const Encoding pair = tokenizer->encode_pair("Ab", "Abc");
  EXPECT_EQ(pair.ids, (Ids{1, 1, 2, 3}));
  EXPECT_EQ(pair.token_type_ids, (Ids{0, 1, 1, 1}));
  EXPECT_EQ(tokenizer->decode(Ids{1, 2, 0}), "Abc <u>");
}

TEST(TokenizerJson, LongWordsStayLinear) {
  // A generous max_input_chars_per_word lets a 200000-character word through; the search only
  // tries pieces as long as the longest token, so this takes milliseconds, not hours.
  const auto tokenizer = wordpiece_from_tokenizer_json(
      R"({"model": {"type": "WordPiece", "max_input_chars_per_word": 1000000,
                    "vocab": {"[UNK]": 0, "a": 1, "##a": 2, "##aa": 3}}})",
      "t.json");
  const Encoding encoding = tokenizer->encode(std::string(200001, 'a'), false);
  ASSERT_EQ(encoding.size(), 100001u);
  EXPECT_EQ(encoding.tokens[1], "##aa");
  EXPECT_EQ(encoding.offsets.back(), (TokenSpan{199999, 200001}));
}

TEST(TokenizerJson, DeeplyNestedSequencesAreRefused) {
  std::string normalizer = R"({"type": "Lowercase"})";
  for (int i = 0; i < 40; ++i) {
    normalizer = R"({"type": "Sequence", "normalizers": [)" + normalizer + "]}";
  }
  const std::string message =
      json_error(R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}, "normalizer": )" +
                 normalizer + "}");
  EXPECT_NE(message.find("sequences nested too deeply"), std::string::npos) << message;
}

// The tiny BERT of the shared test data: WordPiece in tokenizer.json with 256 tokens, Lowercase
// and StripAccents (no NFD, so precomposed letters keep their accents), the Whitespace
// pre-tokenizer (\w+|[^\w\s]+) and the `[CLS] $A [SEP]` template.
TEST(TokenizerJson, TinyBertFromSharedTestData) {
  TINYENC_REQUIRE_TESTDATA(testdata);
  const auto tokenizer = load_tokenizer_from_folder(testdata / "models/tiny_bert");
  EXPECT_EQ(tokenizer->vocab_size(), 256);
  EXPECT_EQ(tokenizer->special_ids().pad, 0);
  EXPECT_EQ(tokenizer->special_ids().unk, 1);
  EXPECT_EQ(tokenizer->special_ids().cls, 2);
  EXPECT_EQ(tokenizer->special_ids().sep, 3);
  EXPECT_EQ(tokenizer->special_ids().mask, 4);

  const Encoding encoding = tokenizer->encode("The model is new.");
  EXPECT_EQ(encoding.tokens, (Tokens{"[CLS]", "the", "model", "is", "new", ".", "[SEP]"}));
  EXPECT_EQ(encoding.ids, (Ids{2, 74, 122, 75, 88, 42, 3}));
  EXPECT_EQ(encoding.offsets[4], (TokenSpan{13, 16}));
  EXPECT_EQ(tokenizer->decode(encoding.ids), "the model is new.");

  // Suffix pieces from the vocabulary: test ##ing, model ##s, protein ##s.
  EXPECT_EQ(tokenizer->encode("Testing models, proteins", false).ids,
            (Ids{125, 148, 122, 146, 43, 142, 146}));
  // "!!" is one pre-token and "##!" is not in the vocabulary: one [UNK]; "hello" cannot be
  // spelled from these pieces either.
  EXPECT_EQ(tokenizer->encode("hello!!", false).ids, (Ids{1, 1}));
  // Apostrophes split words: data ' s.
  EXPECT_EQ(tokenizer->encode("data's", false).ids, (Ids{123, 49, 23}));
  // A combining accent is stripped; a precomposed one is not (no NFD in this normalizer).
  EXPECT_EQ(tokenizer->encode("Da\u0301ta da\u0301ta", false).ids, (Ids{123, 123}));
  EXPECT_EQ(tokenizer->encode("dáta", false).ids, (Ids{1}));
  // Pairs: [CLS] A [SEP] B [SEP], B of token type 1.
  const Encoding pair = tokenizer->encode_pair("a cell", "the gene");
  EXPECT_EQ(pair.ids, (Ids{2, 5, 141, 3, 74, 143, 3}));
  EXPECT_EQ(pair.token_type_ids, (Ids{0, 0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace tinyenc
