#include "corpus.h"

#include <fcntl.h>
#include <unistd.h>

#include <tinyenc/text.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "command.h"
#include "line_reader.h"

namespace tinyenc::cli {
namespace {

// An interactive input's buffered texts run when it has been silent this long, or when the first
// of them has waited kMaxWait.
constexpr int kPauseMs = 20;
constexpr auto kMaxWait = std::chrono::milliseconds(200);

uint64_t file_bytes_or_throw(int fd, const std::string& path, std::vector<char>& buffer,
                             const std::function<bool(const char*, size_t, uint64_t)>& chunk) {
  uint64_t offset = 0;
  for (;;) {
    const ssize_t count = ::read(fd, buffer.data(), buffer.size());
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      throw std::invalid_argument(path + ": cannot read: " + std::strerror(errno));
    }
    if (count == 0) return offset;
    if (!chunk(buffer.data(), static_cast<size_t>(count), offset)) {
      return offset + static_cast<uint64_t>(count);
    }
    offset += static_cast<uint64_t>(count);
  }
}

}  // namespace

Model::EmbedOptions::Names command_line_names() {
  Model::EmbedOptions::Names names;
  names.long_texts = "--long";
  names.overlap = "--overlap";
  names.position_offset = "--position-offset";
  return names;
}

void check_chunking(const Model::EmbedOptions& options, bool per_token) {
  if (options.long_texts != "chunk") return;
  // A window's pooled vector and logits average meaningfully; a per-token output, a pair's two
  // texts and the rows of hidden states have no one way to join.
  if (per_token)
    throw UsageError(
        "--long chunk: pooling none gives a vector per token; chunks "
        "join pooled outputs only");
  if (options.hidden_states)
    throw UsageError(
        "--long chunk: --hidden-states are per window; "
        "chunks join pooled outputs only");
  if (options.pair)
    throw UsageError(
        "--long chunk: --pair texts are cut, not chunked "
        "(use --long truncate)");
}

void add_lines(Model::Stream& runner, LineReader& reader, bool interactive, size_t max_lines) {
  std::string line;
  for (size_t lines = 0; lines < max_lines;) {
    const bool waiting = interactive && runner.buffered() > 0;
    const auto status = reader.next(line, waiting ? kPauseMs : -1);
    if (status == LineReader::Status::kEnd) return;
    if (status == LineReader::Status::kPause) {
      runner.flush();
      continue;
    }
    ++lines;
    runner.add(line);
    if (interactive && runner.buffered() > 0 &&
        std::chrono::steady_clock::now() - runner.first_buffered_time() >= kMaxWait) {
      runner.flush();
    }
  }
}

Shard parse_shard(const std::string& text) {
  const auto fail = [&] {
    return UsageError("--shard: expected I/N, shard I of N counted from 0 (0 <= I < N), got " +
                      in_quotes(text));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw fail();
  const auto number = [&](const std::string& digits) {
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      throw fail();
    }
    return std::stoll(digits);
  };
  Shard shard;
  shard.index = number(text.substr(0, slash));
  shard.count = number(text.substr(slash + 1));
  if (shard.count < 1 || shard.index >= shard.count) throw fail();
  return shard;
}

LineRange shard_lines(const std::string& path, const Shard& shard, int window) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::invalid_argument(path + ": cannot open the input file: " + std::strerror(errno));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::vector<char> buffer(size_t{1} << 20);
  // First pass: the lines, a last one without "\n" included.
  uint64_t newlines = 0;
  char last = '\n';
  const uint64_t size =
      file_bytes_or_throw(fd, path, buffer, [&](const char* data, size_t count, uint64_t) {
        newlines += static_cast<uint64_t>(std::count(data, data + count, '\n'));
        last = data[count - 1];
        return true;
      });
  const uint64_t lines = newlines + (last != '\n' ? 1 : 0);
  const uint64_t per_window = static_cast<uint64_t>(window);
  const uint64_t windows = (lines + per_window - 1) / per_window;
  const auto boundary = [&](uint64_t index) {  // floor(index * windows / count), no overflow
    const uint64_t count = static_cast<uint64_t>(shard.count);
    return index * (windows / count) + index * (windows % count) / count;
  };
  LineRange range;
  range.first_line = std::min(lines, per_window * boundary(static_cast<uint64_t>(shard.index)));
  range.end_line = std::min(lines, per_window * boundary(static_cast<uint64_t>(shard.index) + 1));
  range.end_byte = size;
  // Second pass: where line first_line begins and line end_line begins (after so many "\n").
  if (::lseek(fd, 0, SEEK_SET) != 0) {
    throw std::invalid_argument(path + ": cannot read twice (--shard needs a regular file)");
  }
  uint64_t seen = 0;
  bool found_end = range.end_line >= lines;
  file_bytes_or_throw(fd, path, buffer, [&](const char* data, size_t count, uint64_t offset) {
    for (size_t i = 0; i < count; ++i) {
      if (data[i] != '\n') continue;
      ++seen;
      if (seen == range.first_line) range.first_byte = offset + i + 1;
      if (seen == range.end_line && !found_end) {
        range.end_byte = offset + i + 1;
        found_end = true;
        return false;
      }
    }
    return true;
  });
  return range;
}

}  // namespace tinyenc::cli
