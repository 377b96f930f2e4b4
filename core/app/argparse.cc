#include "app/argparse.h"

#include <cstdlib>

namespace visprobe {

bool LooksLikeOption(const std::string& s) {
  if (s.size() < 2 || s[0] != '-') return false;
  // argparse treats negative numbers as values.
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !(end && *end == '\0');
}

Status ReadArgs(const std::vector<OptSpec>& specs, const std::vector<std::string>& argv,
                const std::function<Status(const OptSpec&, const std::vector<std::string>&)>& on_option,
                const std::string& positional, std::vector<std::string>* positionals) {
  std::vector<std::string> unknown;
  std::vector<bool> seen(specs.size(), false);
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string arg = argv[i], value;
    bool has_inline = false;
    if (arg.size() > 1 && arg[0] == '-') {
      auto eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    size_t k = 0;
    for (; k < specs.size(); ++k)
      if ((!specs[k].short_name.empty() && arg == specs[k].short_name) || arg == specs[k].long_name) break;
    if (k == specs.size()) {
      if (!positional.empty() && positionals && !LooksLikeOption(argv[i]))
        positionals->push_back(argv[i]);
      else
        unknown.push_back(argv[i]);
      continue;
    }
    const OptSpec& o = specs[k];
    seen[k] = true;
    std::vector<std::string> values;
    switch (o.arity) {
      case OptSpec::Arity::kOne:
        if (has_inline)
          values.push_back(value);
        else if (i + 1 < argv.size() && !LooksLikeOption(argv[i + 1]))
          values.push_back(argv[++i]);
        else
          return InvalidInput(Msg<msg::kArgumentExpectedOneArgument>(o.Title()));
        break;
      case OptSpec::Arity::kFlag:
        if (has_inline) return InvalidInput(Msg<msg::kArgumentIgnoredExplicitArgument>(o.Title(), value));
        break;
      case OptSpec::Arity::kOptional:
        if (has_inline)
          values.push_back(value);
        else if (i + 1 < argv.size() && !LooksLikeOption(argv[i + 1]))
          values.push_back(argv[++i]);
        break;
      case OptSpec::Arity::kMany:
        if (has_inline) values.push_back(value);
        while (i + 1 < argv.size() && !LooksLikeOption(argv[i + 1])) values.push_back(argv[++i]);
        if (values.empty()) return InvalidInput(Msg<msg::kArgumentExpectedLeastOne>(o.Title()));
        break;
    }
    RETURN_IF_ERROR(on_option(o, values));
  }
  std::string missing;
  for (size_t k = 0; k < specs.size(); ++k)
    if (specs[k].required && !seen[k]) missing += (missing.empty() ? "" : ", ") + specs[k].Title();
  if (!positional.empty() && positionals && positionals->empty()) missing += (missing.empty() ? "" : ", ") + positional;
  if (!missing.empty()) return InvalidInput(Msg<msg::kFollowingArgumentsRequired>(missing));
  if (!unknown.empty()) {
    std::string u;
    for (const auto& s : unknown) u += (u.empty() ? "" : " ") + s;
    return InvalidInput(Msg<msg::kUnrecognizedArguments>(u));
  }
  return Status::Ok();
}

}  // namespace visprobe
