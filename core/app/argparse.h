// One reader of the subcommands' command lines (graph_visualize, data2db, gather), with argparse's
// rules and messages: long and short names, "--opt value" and "--opt=value", options taking one
// value, none (flags), an optional value or several, required options and positionals; unknown
// words are collected and reported after the required ones ("unrecognized arguments: ...").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct OptSpec {
  enum class Arity { kOne, kFlag, kOptional, kMany };
  std::string short_name;  // may be empty
  std::string long_name;
  Arity arity = Arity::kOne;
  bool required = false;
  // "-tp/--target_path" or "--db", as argparse names an option in its messages.
  std::string Title() const { return short_name.empty() ? long_name : short_name + "/" + long_name; }
};

// argparse's rule for the word after an option: "-x" is the next option unless it parses as a
// number (negative numbers are values).
bool LooksLikeOption(const std::string& s);

// Reads argv in order. Each option found goes to `on_option` with its values (none for a flag or
// an optional value left out); its error (a conversion: "invalid int value", "invalid choice") ends
// the reading, as argparse's does. Words that are not options are `positional` values when it is
// named (e.g. "PART": at least one required), else unrecognized.
Status ReadArgs(const std::vector<OptSpec>& specs, const std::vector<std::string>& argv,
                const std::function<Status(const OptSpec&, const std::vector<std::string>&)>& on_option,
                const std::string& positional = "", std::vector<std::string>* positionals = nullptr);

}  // namespace visprobe
