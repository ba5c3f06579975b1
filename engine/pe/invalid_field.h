// A configuration error that names its field as the config file spells it, so that models/ can
// report it against the file (JSON keys differ between model families) and the engine as is.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace tinyenc {

struct InvalidField : std::invalid_argument {
  InvalidField(std::string field, std::string message)
      : std::invalid_argument(field + ": " + message),
        field(std::move(field)),
        message(std::move(message)) {}
  std::string field;
  std::string message;
};

// How the config at hand spells the fields a message may name.
struct FieldNames {
  std::string_view d_model = "hidden_size";
  std::string_view heads = "num_attention_heads";
  std::string_view position_encoding = "position_encoding";  // empty: fields of the object itself

  // A parameter of the position_encoding object, e.g. "position_encoding.rotary_dim".
  std::string parameter(std::string_view name) const {
    return position_encoding.empty() ? std::string(name)
                                     : std::string(position_encoding) + "." + std::string(name);
  }
};

}  // namespace tinyenc
