#include "engine/io/json_document.h"

#include <set>
#include <vector>

#include "engine/io/quoted.h"

namespace tinyenc {
namespace {

// Text from the file, with control characters escaped so that the message stays on one line.
std::string escaped(std::string_view text) {
  const std::string quoted = in_quotes(text);
  return quoted.ends_with("'...") ? quoted.substr(1, quoted.size() - 5) + "..."
                                  : quoted.substr(1, quoted.size() - 2);
}

// Where the parser is: one entry per open object or array, outermost first.
struct Level {
  bool is_object = true;
  std::set<std::string> keys;  // an object's keys so far
  std::string key;             // the key whose value is being read
  size_t index = 0;            // an array's element being read
};

std::string where(const std::vector<Level>& levels) {
  std::string path;
  for (size_t i = 0; i + 1 < levels.size(); ++i) {
    if (levels[i].is_object) {
      path += (path.empty() ? "" : ".") + escaped(levels[i].key);
    } else {
      path += "[" + std::to_string(levels[i].index) + "]";
    }
  }
  return path;
}

}  // namespace

RepeatedJsonKey::RepeatedJsonKey(const std::string& where, const std::string& key)
    : std::invalid_argument((where.empty() ? "" : where + ": ") + "key " + in_quotes(key) +
                            " appears more than once"),
      key_(key),
      top_level_(where.empty()) {}

nlohmann::json parse_json_unique_keys(std::string_view text) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<Level> levels;
  const auto element_done = [&levels] {
    if (!levels.empty() && !levels.back().is_object) ++levels.back().index;
  };
  // The parser reports each event as it reads it; throwing from here stops it at the first
  // repeated key.
  const auto callback = [&](int /*depth*/, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        levels.push_back(Level{event == Event::object_start, {}, {}, 0});
        break;
      case Event::key: {
        Level& object = levels.back();
        object.key = parsed.get<std::string>();
        if (!object.keys.insert(object.key).second) {
          throw RepeatedJsonKey(where(levels), object.key);
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        levels.pop_back();
        element_done();
        break;
      case Event::value:
        element_done();
        break;
    }
    return true;
  };
  return nlohmann::json::parse(text.begin(), text.end(), callback);
}

std::string json_error_message(const std::exception& error) {
  std::string_view message = error.what();
  if (message.starts_with("[json.exception.")) {
    const size_t tag_end = message.find("] ");
    if (tag_end != std::string_view::npos) message.remove_prefix(tag_end + 2);
  }
  return std::string(message);
}

nlohmann::json parse_json_document(std::string_view text, const std::string& source) {
  try {
    return parse_json_unique_keys(text);
  } catch (const RepeatedJsonKey& error) {
    throw std::invalid_argument(source + ": " + error.what());
  } catch (const nlohmann::json::exception& error) {
    // A syntax error (parse_error) or a number too large for a double (out_of_range 406).
    throw std::invalid_argument(source + ": not valid JSON: " + json_error_message(error));
  }
}

}  // namespace tinyenc
