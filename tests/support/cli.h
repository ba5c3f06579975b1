// The tinyenc program and its shipped models, for the tests that run it as a user would
// (tests/tools, built by tinyenc_program_test, which names the program in TINYENC_BINARY).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_program.h"
#include "tests/support/test_data.h"

#ifndef TINYENC_BINARY
#error "tests/support/cli.h needs TINYENC_BINARY: build the test with tinyenc_program_test"
#endif

namespace tinyenc::testing {

// `tinyenc arguments` (arguments already shell-quoted) with `input` on standard input.
inline ProgramResult run_tinyenc(const std::string& arguments, const std::string& input = "") {
  return run_program(TINYENC_BINARY, arguments, input);
}

// `result` is tinyenc's refusal: exit 2, one line "tinyenc: error: ..." on standard error that
// mentions `mentions`, nothing on standard output. `what` prefixes each failure message.
inline void expect_one_line_error(const ProgramResult& result, const std::string& mentions,
                                  const std::string& what = "") {
  EXPECT_EQ(result.exit_code, 2) << what << ": " << result.out << result.err;
  EXPECT_EQ(count_lines(result.err), 1) << what << ": " << result.err;
  EXPECT_EQ(result.err.rfind("tinyenc: error: ", 0), 0u) << what << ": " << result.err;
  EXPECT_NE(result.err.find(mentions), std::string::npos) << what << ": " << result.err;
  EXPECT_EQ(result.out, "") << what << ": nothing may be printed before the error";
}

}  // namespace tinyenc::testing
