// Validation, ISA selection and threading for the PE kernels.

#include <stdexcept>
#include <string>

#include "engine/parallel_rows.h"
#include "engine/pe/kernel_table.h"
#include "engine/pe/kernels.h"

namespace tinyenc {
namespace {

const detail::PeKernelTable& kernels_for(Isa isa) {
  if (!isa_supported(isa)) {
    throw std::invalid_argument("PE kernels: ISA '" + std::string(isa_name(isa)) +
                                "' is not supported by this CPU or build");
  }
  switch (isa) {
#if defined(__x86_64__)
    case Isa::kAvx2:
      return detail::kAvx2PeKernels;
    case Isa::kAvx512:
      return detail::kAvx512PeKernels;
#endif
#if defined(__aarch64__)
    case Isa::kNeon:
      return detail::kNeonPeKernels;
#endif
    default:
      return detail::kScalarPeKernels;
  }
}

// Below this many floats of work a pass is not worth waking a second thread for.
constexpr int64_t kMinParallelFloats = 1 << 16;

void check_ids(const int32_t* ids, int64_t count, int64_t rows, const char* what) {
  for (int64_t t = 0; t < count; ++t) {
    if (ids[t] < 0 || ids[t] >= rows) {
      throw std::out_of_range(std::string(what) + "[" + std::to_string(t) +
                              "] = " + std::to_string(ids[t]) + " is outside the table of " +
                              std::to_string(rows) + " rows");
    }
  }
}

void require(bool condition, const char* message) {
  if (!condition) throw std::invalid_argument(message);
}

}  // namespace

// 32 MiB: the L3 a Zen 3 core shares with its CCD, and more than most client parts have. A
// smaller output is left in cache for the layer that reads it next; a larger one would be
// evicted before that anyway, so writing it around the caches saves the read for ownership of
// every line (about a quarter of the pass's memory traffic). Measured in bench/: streaming made
// BM_EmbedPE at 16384 x 1024 (64 MiB) 10-20% faster and at 512 x 768 (1.5 MiB) slower.
bool detail::stream_embedding_output(const EmbeddingArgs& args) {
  constexpr int64_t kStreamOutputBytes = int64_t{32} << 20;
  return args.tokens * args.d_model * static_cast<int64_t>(sizeof(float)) >= kStreamOutputBytes;
}

void embed_tokens(const EmbeddingArgs& args, Isa isa) {
  require(args.tokens >= 0 && args.d_model > 0, "embed_tokens: tokens >= 0 and d_model > 0");
  require(args.token_ids && args.token_table && args.out, "embed_tokens: null ids/table/out");
  require(!args.gamma == !args.beta, "embed_tokens: LayerNorm needs both gamma and beta");
  check_ids(args.token_ids, args.tokens, args.vocab_size, "token_ids");
  if (args.position_table) {
    if (args.position_ids) {
      check_ids(args.position_ids, args.tokens, args.position_rows, "position_ids");
    } else if (args.tokens > args.position_rows) {
      throw std::out_of_range("embed_tokens: " + std::to_string(args.tokens) +
                              " positions but the position table has " +
                              std::to_string(args.position_rows) + " rows");
    }
  }
  if (args.token_type_table) {
    if (args.token_type_ids) {
      check_ids(args.token_type_ids, args.tokens, args.token_type_rows, "token_type_ids");
    } else {
      require(args.token_type_rows > 0, "embed_tokens: empty token-type table");
    }
  }
  const detail::PeKernelTable& kernels = kernels_for(isa);
  const bool stream = detail::stream_embedding_output(args);
  parallel_rows(args.tokens, args.tokens * args.d_model, kMinParallelFloats,
                [&](int64_t begin, int64_t end) { kernels.embed(args, begin, end, stream); });
}

void rotate_queries_keys(const RopeArgs& args, Isa isa) {
  require(args.tokens >= 0 && args.heads > 0 && args.head_dim > 0, "rope: bad shape");
  require(args.rotary_dim > 0 && args.rotary_dim % 2 == 0 && args.rotary_dim <= args.head_dim,
          "rope: rotary_dim must be even, positive and <= head_dim");
  require(args.q && args.cos && args.sin, "rope: null q/cos/sin");
  require(args.q_stride >= args.heads * args.head_dim, "rope: q_stride < heads * head_dim");
  require(!args.k || args.k_stride >= args.heads * args.head_dim,
          "rope: k_stride < heads * head_dim");
  if (args.position_ids) {
    check_ids(args.position_ids, args.tokens, args.table_positions, "position_ids");
  } else if (args.tokens > args.table_positions) {
    throw std::out_of_range("rope: " + std::to_string(args.tokens) +
                            " positions but the cos/sin table has " +
                            std::to_string(args.table_positions) + " rows");
  }
  const detail::PeKernelTable& kernels = kernels_for(isa);
  const int64_t work = args.tokens * args.heads * args.rotary_dim * (args.k ? 2 : 1);
  parallel_rows(args.tokens, work, kMinParallelFloats,
                [&](int64_t begin, int64_t end) { kernels.rotate(args, begin, end); });
}

void add_distance_bias(const DistanceBiasArgs& args, Isa isa) {
  require(args.scores && args.distance_bias, "distance bias: null scores/bias");
  require(args.batch >= 0 && args.heads > 0 && args.queries > 0 && args.keys > 0,
          "distance bias: bad shape");
  require(args.table_queries >= 0 && args.table_keys >= 0 &&
              (args.table_queries == 0 || args.table_queries >= args.queries) &&
              (args.table_keys == 0 || args.table_keys >= args.keys),
          "distance bias: the table is shorter than the scores");
  const detail::PeKernelTable& kernels = kernels_for(isa);
  const int64_t rows = args.batch * args.heads * args.queries;
  parallel_rows(rows, rows * args.keys, kMinParallelFloats,
                [&](int64_t begin, int64_t end) { kernels.add_distance_bias(args, begin, end); });
}

}  // namespace tinyenc
