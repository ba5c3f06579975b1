// The command line's side of the corpus runner (tinyenc::Model::Stream): lines of a file or
// standard input fed to it as they come, the CLI's refusals of options that cannot chunk, and
// --shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <tinyenc/tinyenc.h>

namespace tinyenc::cli {

class LineReader;

// The runner's options as the command line spells them in errors.
Model::EmbedOptions::Names command_line_names();

// Throws UsageError naming the option that cannot go with --long chunk: pooling none (a vector
// per token), --hidden-states, --pair.
void check_chunking(const Model::EmbedOptions& options, bool per_token);

// Every line of `reader`, at most `max_lines` of them, is a text (an empty one too) added to
// `runner`. With `interactive` (a pipe or a terminal), what is buffered runs when the input
// pauses or its first text has waited 200 ms, so that lines typed or piped in slowly are answered
// as they come.
void add_lines(Model::Stream& runner, LineReader& reader, bool interactive,
               size_t max_lines = std::numeric_limits<size_t>::max());

// --shard I/N: shard I of N (0-based).
struct Shard {
  int64_t index = 0, count = 1;
};
// "I/N" with 0 <= I < N; throws UsageError naming --shard otherwise.
Shard parse_shard(const std::string& text);

// The lines [first_line, end_line) of a regular file that shard I of N processes, and where they
// begin and end in bytes. A shard is a run of whole windows: of the file's K = ceil(L / window)
// windows (L lines, a last one without "\n" counted) shard I takes windows I*K/N to (I+1)*K/N
// (rounded down), so lines window*floor(I*K/N) to window*floor((I+1)*K/N). Its batches are then
// the very batches the unsharded run forms for those lines, so the shards' outputs concatenated
// in order are the unsharded output byte for byte, whatever the engine's rounding does with a
// batch's shape. (Cutting at I*L/N instead would batch the lines of a window that straddles a
// cut differently, and change the last bits of their floats.) Throws std::invalid_argument when
// the file cannot be read.
struct LineRange {
  uint64_t first_line = 0, end_line = 0;
  uint64_t first_byte = 0, end_byte = 0;
};
LineRange shard_lines(const std::string& path, const Shard& shard, int window);

}  // namespace tinyenc::cli
