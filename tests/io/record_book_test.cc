// RecordBook: a value is made once and read back by every later reader; a torn or malformed line
// never counts; several writers (each with its own open file, as processes have) agree.
#include "engine/io/record_book.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/temp_folder.h"

namespace tinyenc {
namespace {

namespace fs = std::filesystem;

class RecordBookTest : public ::testing::Test {
 protected:
  testing::TempFolder temp_{"record_book_test"};
  const fs::path& folder_ = temp_.path();

  fs::path file(const std::string& name) const { return folder_ / name; }
  static std::string content(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }
};

TEST_F(RecordBookTest, MakesAValueOnceAndReadsItBackInAnotherBook) {
  const fs::path path = file("nested/folder/book.tsv");  // folders are created
  int made = 0;
  RecordBook first(path);
  EXPECT_EQ(first.find_or_add("shape a", [&] { return ++made, std::string("matmul"); }), "matmul");
  EXPECT_EQ(first.find_or_add("shape a", [&] { return ++made, std::string("other"); }), "matmul");
  EXPECT_EQ(made, 1);
  RecordBook second(path);
  EXPECT_EQ(second.find_or_add("shape a", [&] { return ++made, std::string("other"); }), "matmul");
  EXPECT_EQ(second.find_or_add("shape b", [&] { return ++made, std::string("convolution"); }),
            "convolution");
  EXPECT_EQ(made, 2);
  EXPECT_EQ(content(path), "shape a\tmatmul\nshape b\tconvolution\n");
}

TEST_F(RecordBookTest, TheFirstLineOfAKeyWinsAndMalformedLinesAreSkipped) {
  const fs::path path = file("book.tsv");
  write(path, "no tab here\n\tempty key\nempty value\t\nk\tfirst\nk\tsecond\n");
  RecordBook book(path);
  EXPECT_EQ(book.find_or_add("k", [] { return std::string("made"); }), "first");
  EXPECT_EQ(book.find_or_add("empty value", [] { return std::string("made"); }), "made");
}

TEST_F(RecordBookTest, ATornLastLineIsCutOffByTheNextWriter) {
  const fs::path path = file("book.tsv");
  write(path, "a\t1\nk\tmat");  // a writer killed in the middle of "k\tmatmul\n"
  RecordBook book(path);
  EXPECT_EQ(book.find_or_add("k", [] { return std::string("convolution"); }), "convolution");
  EXPECT_EQ(content(path), "a\t1\nk\tconvolution\n");
  RecordBook again(path);
  EXPECT_EQ(again.find_or_add("a", [] { return std::string("2"); }), "1");
}

TEST_F(RecordBookTest, NothingIsMadeOrWrittenWhereNoBookCanBe) {
  write(file("plain"), "x");
  RecordBook under_a_file(file("plain") / "book.tsv");  // its folder is a regular file
  bool made = false;
  EXPECT_EQ(under_a_file.find_or_add("k", [&] { return made = true, std::string("v"); }),
            std::nullopt);
  EXPECT_FALSE(made);
  fs::create_directories(file("a folder"));
  RecordBook a_folder(file("a folder"));
  EXPECT_EQ(a_folder.find_or_add("k", [&] { return made = true, std::string("v"); }), std::nullopt);
  EXPECT_FALSE(made);
}

TEST_F(RecordBookTest, AValueThatCannotBeALineIsNotRecorded) {
  const fs::path path = file("book.tsv");
  RecordBook book(path);
  EXPECT_EQ(book.find_or_add("k", [] { return std::string("two\tfields"); }), std::nullopt);
  EXPECT_EQ(book.find_or_add("bad\tkey", [] { return std::string("v"); }), std::nullopt);
  EXPECT_EQ(content(path), "");
}

// Eight books on one file, as eight processes starting together: one of them makes the value
// (slowly, holding the lock) and the other seven read it.
TEST_F(RecordBookTest, WritersStartingTogetherAgreeOnOneValue) {
  const fs::path path = file("book.tsv");
  std::atomic<int> made{0};
  std::vector<std::string> seen(8);
  std::vector<std::thread> writers;
  for (size_t i = 0; i < seen.size(); ++i) {
    writers.emplace_back([&, i] {
      RecordBook book(path);
      seen[i] = book.find_or_add("k",
                                 [&] {
                                   ++made;
                                   std::this_thread::sleep_for(std::chrono::milliseconds(30));
                                   return "writer" + std::to_string(i);
                                 })
                    .value_or("none");
    });
  }
  for (std::thread& writer : writers) writer.join();
  EXPECT_EQ(made.load(), 1);
  for (const std::string& value : seen) EXPECT_EQ(value, seen[0]);
  EXPECT_EQ(content(path), "k\t" + seen[0] + "\n");
}

}  // namespace
}  // namespace tinyenc
