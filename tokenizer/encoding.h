// Encoding is a public type of the library: <tinyenc/encoding.h>.
#pragma once

#include <tinyenc/encoding.h>
