// PositionEncodingDescription is a public type of the library: <tinyenc/position_encoding.h>.
#pragma once

#include <tinyenc/position_encoding.h>
