// A sentence-transformers folder: besides the Hugging Face files, modules.json lists the modules
// that turn the encoder's hidden states into a sentence embedding, each in its own subfolder:
//   [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
//    {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
//    {"idx": 2, "name": "2", "path": "2_Normalize", "type":
//    "sentence_transformers.models.Normalize"}]
// 1_Pooling/config.json chooses the pooling with one true pooling_mode_* flag. tinyenc runs
// cls and mean pooling and the L2 normalization; any other module or mode is refused, since
// the embedding would silently differ from the one sentence-transformers computes.
#pragma once

#include <filesystem>

#include "models/config.h"

namespace tinyenc {

// When `dir` holds modules.json: sets config.encoder.pooling and config.normalize_embeddings
// from its modules, and caps config.max_sequence_length at sentence_bert_config.json's
// max_seq_length. Throws std::invalid_argument("<file>: <field>: <what>") for a module,
// pooling mode or dimension tinyenc cannot follow, std::runtime_error for an unreadable file.
void read_sentence_transformers_modules(const std::filesystem::path& dir, ModelConfig& config);

}  // namespace tinyenc
