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

// In this process: TINYENC_ISA as the test was started with.
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

// active_isa() reads TINYENC_ISA once per process, so each setting runs in a fresh child
// process (a gtest death test in "threadsafe" style re-executes this binary). The child exits
// with 10 + the ISA it chose, or 2 after printing the exception message.
[[noreturn]] void exit_with_active_isa() {
  try {
    std::exit(10 + static_cast<int>(active_isa()));
  } catch (const std::invalid_argument& error) {
    std::fprintf(stderr, "%s\n", error.what());
    std::exit(2);
  }
}

class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const char* name) : name_(name) {
    const char* value = std::getenv(name);
    if (value) saved_ = value;
  }
  ~ScopedEnvironment() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  void set(const char* value) { setenv(name_, value, 1); }
  void unset() { unsetenv(name_); }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(IsaDeathTest, ActiveIsaHonoursTinyencIsa) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ScopedEnvironment environment("TINYENC_ISA");
  const int best = 10 + static_cast<int>(best_supported_isa());

  environment.unset();
  EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(best), "");
  environment.set("");
  EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(best), "");
  environment.set("scalar");
  EXPECT_EXIT(exit_with_active_isa(),
              ::testing::ExitedWithCode(10 + static_cast<int>(Isa::kScalar)), "");
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512, Isa::kNeon}) {
    SCOPED_TRACE(std::string(isa_name(isa)));
    environment.set(std::string(isa_name(isa)).c_str());
    if (isa_supported(isa)) {
      EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(10 + static_cast<int>(isa)),
                  "");
    } else {
      EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(2), "is not supported");
    }
  }
  environment.set("bogus");
  EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(2), "unknown ISA 'bogus'");
  environment.set("AVX2");
  EXPECT_EXIT(exit_with_active_isa(), ::testing::ExitedWithCode(2), "unknown ISA 'AVX2'");
}

}  // namespace
}  // namespace tinyenc
