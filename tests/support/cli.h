// The tinyenc program and its shipped models, for the tests that run it as a user would
// (tests/tools, built by tinyenc_program_test, which names the program in TINYENC_BINARY).
#pragma once

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

}  // namespace tinyenc::testing
