// No reference implementation of oneDNN's runs in a forward pass: every shipped model and every
// preset, in every compute dtype this CPU has, at lengths around the row blocks of the kernels
// (1 to 3 tokens, 27 to 48, 64, 129), with ONEDNN_VERBOSE=1 making oneDNN list each primitive it
// executes ("onednn_verbose,exec,cpu,<kind>,<implementation>,..."). The names are oneDNN's own,
// read from its output, not what tinyenc recorded. The same lengths also ran, without a crash,
// the kernels a wider CPU picks: on an AMX CPU, oneDNN 2.6's AMX int8 1x1 convolution stores past
// its destination at 27, 33, 36, 39, 42, 45 and 48 rows.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/dtype.h"
#include "tests/support/cli.h"
#include "tests/support/run_program.h"
#include "tests/support/test_data.h"

namespace tinyenc {
namespace {

using testing::ProgramResult;
using testing::run_program;
using testing::shell_quote;

const char* const kDtypes[] = {"f32", "bf16", "int8"};

// The implementation names of every primitive oneDNN executed, by "<kind> <implementation>".
std::set<std::string> executed(const std::string& verbose) {
  std::set<std::string> names;
  std::istringstream lines(verbose);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("onednn_verbose,exec,") && !line.starts_with("dnnl_verbose,exec,")) {
      continue;
    }
    std::vector<std::string> fields;
    std::istringstream parts(line);
    for (std::string field; std::getline(parts, field, ',');) fields.push_back(field);
    if (fields.size() > 4) names.insert(fields[3] + " " + fields[4]);
  }
  return names;
}

void expect_no_reference(const ProgramResult& result, const std::string& what) {
  ASSERT_EQ(result.exit_code, 0) << what << "\n" << result.err;
  const std::set<std::string> names = executed(result.out);
  ASSERT_FALSE(names.empty()) << what << ": ONEDNN_VERBOSE printed no exec lines";
  std::string all;
  for (const std::string& name : names) all += "\n  " + name;
  for (const std::string& name : names) {
    const std::string implementation = name.substr(name.find(' ') + 1);
    EXPECT_FALSE(implementation.starts_with("ref")) << what << " ran " << name << "; all:" << all;
  }
  std::cout << "[ impls ] " << what << ":" << all << "\n";
}

bool supported(const char* dtype) {
  return dtype_unsupported_reason(*parse_compute_dtype(dtype)).empty();
}

TEST(CliImplementations, PresetsRunNoReferenceKernel) {
  for (const char* preset : {"tiny", "mini", "small", "base"}) {
    for (const char* dtype : kDtypes) {
      if (!supported(dtype)) continue;
      const std::string arguments = std::string("bench --config ") + preset +
                                    " --seq 1,2,3,27,33,36,39,42,45,48,64,129 --dtype " + dtype +
                                    " --warmup 0 --repeat 1 --min-time 0 -f csv";
      expect_no_reference(run_program(TINYENC_BINARY, arguments, "", "ONEDNN_VERBOSE=1"),
                          std::string(preset) + " " + dtype);
    }
  }
}

TEST(CliImplementations, ShippedModelsRunNoReferenceKernel) {
  // Sentences of 1 to 16 repetitions of a 3-character clause: 5 to 50 tokens with <s> and </s>.
  std::string lines;
  for (int n = 1; n <= 16; ++n) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "我打你";
    lines += text + "\n";
  }
  for (const char* name : {"order-none", "order-sinusoidal", "order-learned", "order-rope",
                           "order-alibi", "order-relative"}) {
    for (const char* dtype : kDtypes) {
      if (!supported(dtype)) continue;
      const std::string model = shell_quote(testing::pretrained_model(name));
      const std::string arguments = "run -m " + model + " --dtype " + dtype + " -i -";
      expect_no_reference(run_program(TINYENC_BINARY, arguments, lines, "ONEDNN_VERBOSE=1"),
                          std::string(name) + " " + dtype);
    }
  }
}

}  // namespace
}  // namespace tinyenc
