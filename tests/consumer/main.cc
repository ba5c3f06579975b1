#include <tinyenc/tinyenc.h>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: %s MODEL_DIR TEXT\n", argv[0]), 2;
  try {
    tinyenc::Model model = tinyenc::Model::load(argv[1]);
    std::vector<float> embedding = model.embed({argv[2]})[0];
    tinyenc::Classification label = model.classify({argv[2]})[0];
    std::printf("embedding %zu\nlabel %s %.4f\n", embedding.size(), label.label.c_str(),
                label.probabilities[label.id]);
  } catch (const tinyenc::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.kind() == tinyenc::Error::Kind::kBadInput ? 2 : 1;
  }
}
