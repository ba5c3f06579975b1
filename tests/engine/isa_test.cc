// ISA names, support detection and the TINYENC_ISA override (engine/isa.h).
#include "engine/isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tinyenc {
namespace {

constexpr Isa kAllIsas[] = {Isa::kScalar, Isa::kAvx2, Isa::kAvx512, Isa::kNeon};

TEST(IsaTest, NamesRoundTrip) {
  EXPECT_EQ(isa_name(Isa::kScalar), "scalar");
  EXPECT_EQ(isa_name(Isa::kAvx2), "avx2");
  EXPECT_EQ(isa_name(Isa::kAvx512), "avx512");
  EXPECT_EQ(isa_name(Isa::kNeon), "neon");
  for (Isa isa : kAllIsas) {
    const std::optional<Isa> parsed = parse_isa(isa_name(isa));
    ASSERT_TRUE(parsed.has_value()) << isa_name(isa);
    EXPECT_EQ(*parsed, isa);
  }
}

TEST(IsaTest, UnknownNamesAreRejected) {
  for (const char* name : {"", "AVX2", "Scalar", "avx", "avx512f", "sse4.2", "sve", " avx2",
                           "avx2 ", "avx2\n", "neon64", "native", "auto"}) {
    EXPECT_FALSE(parse_isa(name).has_value()) << "'" << name << "'";
  }
}

TEST(IsaTest, CompiledIsas) {
  const std::vector<Isa> compiled = compiled_isas();
  ASSERT_FALSE(compiled.empty());
  EXPECT_EQ(compiled.front(), Isa::kScalar);
  EXPECT_EQ(std::set<Isa>(compiled.begin(), compiled.end()).size(), compiled.size())
      << "duplicates";
#if defined(__x86_64__)
  EXPECT_EQ(compiled, (std::vector<Isa>{Isa::kScalar, Isa::kAvx2, Isa::kAvx512}));
#elif defined(__aarch64__)
  EXPECT_EQ(compiled, (std::vector<Isa>{Isa::kScalar, Isa::kNeon}));
#endif
}

TEST(IsaTest, Support) {
  EXPECT_TRUE(isa_supported(Isa::kScalar));
  const std::vector<Isa> compiled = compiled_isas();
  for (Isa isa : kAllIsas) {
    const bool is_compiled = std::find(compiled.begin(), compiled.end(), isa) != compiled.end();
    if (!is_compiled) {
      EXPECT_FALSE(isa_supported(isa)) << isa_name(isa) << " is not compiled in";
    }
  }
  // AVX-512 support implies AVX2 support (the AVX-512 kernels also use AVX2 and FMA).
  if (isa_supported(Isa::kAvx512)) {
    EXPECT_TRUE(isa_supported(Isa::kAvx2));
  }
  // The answer is stable.
  for (Isa isa : kAllIsas) EXPECT_EQ(isa_supported(isa), isa_supported(isa));
}

TEST(IsaTest, BestSupportedIsaIsTheFastestSupported) {
  const Isa best = best_supported_isa();
  EXPECT_TRUE(isa_supported(best));
  Isa expected = Isa::kScalar;
  if (isa_supported(Isa::kNeon)) expected = Isa::kNeon;
  if (isa_supported(Isa::kAvx2)) expected = Isa::kAvx2;
  if (isa_supported(Isa::kAvx512)) expected = Isa::kAvx512;
  EXPECT_EQ(best, expected) << "best " << isa_name(best) << ", expected " << isa_name(expected);
}

// In this process: TINYENC_ISA as the test was started with (CI runs the whole suite once
// without it and once with TINYENC_ISA=avx2), so the expectation follows the environment.
TEST(IsaTest, ActiveIsaFollowsThisProcessEnvironment) {
  const char* forced = std::getenv("TINYENC_ISA");
  if (forced == nullptr || *forced == '\0') {
    EXPECT_EQ(active_isa(), best_supported_isa());
  } else {
    const std::optional<Isa> isa = parse_isa(forced);
    ASSERT_TRUE(isa.has_value()) << "TINYENC_ISA=" << forced << " is not an ISA name";
    EXPECT_EQ(active_isa(), *isa);
  }
  EXPECT_TRUE(isa_supported(active_isa()));
}

// What each TINYENC_ISA value selects (active_isa() reads the variable once per process and
// passes it here; the CLI tests run the program with the variable set). Independent of the
// environment this test runs in, except for the last line.
TEST(IsaSetting, SelectsForcesOrRejects) {
  EXPECT_EQ(isa_for_setting(nullptr), best_supported_isa());
  EXPECT_EQ(isa_for_setting(""), best_supported_isa());
  EXPECT_EQ(isa_for_setting("scalar"), Isa::kScalar);
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    SCOPED_TRACE(std::string(isa_name(isa)));
    const std::string name(isa_name(isa));
    if (isa_supported(isa)) {
      EXPECT_EQ(isa_for_setting(name.c_str()), isa);
    } else {
      try {
        isa_for_setting(name.c_str());
        ADD_FAILURE() << "no error for an unsupported ISA";
      } catch (const std::invalid_argument& error) {
        EXPECT_NE(std::string(error.what()).find("is not supported"), std::string::npos);
      }
    }
  }
  for (const char* bogus : {"bogus", "AVX2", "sse4"}) {
    try {
      isa_for_setting(bogus);
      ADD_FAILURE() << "no error for " << bogus;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(std::string("unknown ISA '") + bogus + "'"),
                std::string::npos);
    }
  }
  EXPECT_EQ(active_isa(), isa_for_setting(std::getenv("TINYENC_ISA")));
}

}  // namespace
}  // namespace tinyenc
