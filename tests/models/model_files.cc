#include "tests/models/model_files.h"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace tinyenc::testing {

TestTensor f32_tensor(const std::string& name, std::vector<int64_t> shape, float first) {
  int64_t count = 1;
  for (const int64_t size : shape) count *= size;
  TestTensor tensor{name, "F32", std::move(shape), {}};
  tensor.data.resize(static_cast<size_t>(count) * sizeof(float));
  for (int64_t i = 0; i < count; ++i) {
    const float value = first + static_cast<float>(i) / 1024.0f;
    std::memcpy(tensor.data.data() + i * sizeof(float), &value, sizeof value);
  }
  return tensor;
}

TestTensor u16_tensor(const std::string& name, const std::string& dtype, std::vector<int64_t> shape,
                      const std::vector<uint16_t>& values) {
  TestTensor tensor{name, dtype, std::move(shape), {}};
  tensor.data.resize(values.size() * 2);
  std::memcpy(tensor.data.data(), values.data(), tensor.data.size());
  return tensor;
}

nlohmann::json safetensors_header(const std::vector<TestTensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  size_t offset = 0;
  for (const TestTensor& tensor : tensors) {
    header[tensor.name] = {{"dtype", tensor.dtype},
                           {"shape", tensor.shape},
                           {"data_offsets", {offset, offset + tensor.data.size()}}};
    offset += tensor.data.size();
  }
  return header;
}

std::vector<std::byte> safetensors_bytes(const std::string& header,
                                         const std::vector<std::byte>& data) {
  std::vector<std::byte> bytes(8);
  const uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<std::byte>((length >> (8 * i)) & 0xff);
  for (const char c : header) bytes.push_back(static_cast<std::byte>(c));
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

std::vector<std::byte> safetensors_bytes(const std::vector<TestTensor>& tensors,
                                         int data_misalignment) {
  std::string header = safetensors_header(tensors).dump();
  while ((8 + header.size()) % 4 != static_cast<size_t>(data_misalignment)) header += ' ';
  std::vector<std::byte> data;
  for (const TestTensor& tensor : tensors) {
    data.insert(data.end(), tensor.data.begin(), tensor.data.end());
  }
  return safetensors_bytes(header, data);
}

void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::vector<TestTensor> bert_tensors(const TestDims& dims, const std::string& prefix,
                                     bool with_pooler) {
  std::vector<TestTensor> tensors;
  const auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    tensors.push_back(
        f32_tensor(prefix + name, std::move(shape), static_cast<float>(tensors.size())));
  };
  const auto linear = [&](const std::string& name, int64_t out, int64_t in) {
    add(name + ".weight", {out, in});
    add(name + ".bias", {out});
  };
  const auto norm = [&](const std::string& name) {
    add(name + ".weight", {dims.d_model});
    add(name + ".bias", {dims.d_model});
  };
  const int64_t d = dims.d_model;
  add("embeddings.word_embeddings.weight", {dims.vocab, d});
  add("embeddings.position_embeddings.weight", {dims.max_positions, d});
  if (dims.type_vocab > 0) add("embeddings.token_type_embeddings.weight", {dims.type_vocab, d});
  norm("embeddings.LayerNorm");
  for (int64_t i = 0; i < dims.layers; ++i) {
    const std::string layer = "encoder.layer." + std::to_string(i);
    linear(layer + ".attention.self.query", d, d);
    linear(layer + ".attention.self.key", d, d);
    linear(layer + ".attention.self.value", d, d);
    linear(layer + ".attention.output.dense", d, d);
    norm(layer + ".attention.output.LayerNorm");
    linear(layer + ".intermediate.dense", dims.ffn, d);
    linear(layer + ".output.dense", d, dims.ffn);
    norm(layer + ".output.LayerNorm");
  }
  if (with_pooler) linear("pooler.dense", d, d);
  return tensors;
}

nlohmann::json bert_config(const TestDims& dims) {
  return {{"architectures", {"BertModel"}},
          {"model_type", "bert"},
          {"vocab_size", dims.vocab},
          {"hidden_size", dims.d_model},
          {"num_attention_heads", dims.heads},
          {"num_hidden_layers", dims.layers},
          {"intermediate_size", dims.ffn},
          {"max_position_embeddings", dims.max_positions},
          {"type_vocab_size", dims.type_vocab},
          {"hidden_act", "gelu"},
          {"layer_norm_eps", 1e-12},
          {"pad_token_id", 0}};
}

TestTensor remove_tensor(std::vector<TestTensor>& tensors, const std::string& name) {
  for (auto it = tensors.begin(); it != tensors.end(); ++it) {
    if (it->name == name) {
      TestTensor removed = std::move(*it);
      tensors.erase(it);
      return removed;
    }
  }
  throw std::invalid_argument("no tensor " + name);
}

void write_model(const std::filesystem::path& dir, const nlohmann::json& config,
                 const std::vector<TestTensor>& tensors) {
  std::filesystem::create_directories(dir);
  write_text(dir / "config.json", config.dump(2));
  write_file(dir / "model.safetensors", safetensors_bytes(tensors));
}

}  // namespace tinyenc::testing
