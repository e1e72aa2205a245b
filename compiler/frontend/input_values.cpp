// --input-value NAME=VALUE: a one-element graph input (a sample rate, a mode flag) becomes a
// constant, so shape and constant folding and If folding see its value at compile time.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "compiler/frontend/passes.h"

namespace npu::compiler {

std::pair<std::string, double> parse_input_value(const std::string& spec, const std::string& origin) {
  const auto eq = spec.find('=');
  const std::string where = origin + ": --input-value '" + spec + "'";
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) throw CompileError(where + ": not of the form NAME=VALUE");
  const std::string name = spec.substr(0, eq), text = spec.substr(eq + 1);
  double v = 0;
  if (text == "true" || text == "True") {
    v = 1;
  } else if (text != "false" && text != "False") {
    errno = 0;
    char* end = nullptr;
    v = std::strtod(text.c_str(), &end);
    if (!end || *end != '\0' || errno != 0 || !std::isfinite(v)) throw CompileError(where + ": '" + text + "' is not a number");
  }
  return {name, v};
}

std::string fix_input_values(Graph& g, const std::vector<std::string>& specs) {
  std::string fixed;
  for (const auto& spec : specs) {
    const std::string where = g.source + ": --input-value '" + spec + "'";
    const auto [name, v] = parse_input_value(spec, g.source);
    const std::string text = spec.substr(spec.find('=') + 1);
    const auto input = std::find(g.inputs.begin(), g.inputs.end(), name);
    if (input == g.inputs.end()) {
      std::string names;
      for (const auto& in : g.inputs) names += (names.empty() ? "" : ", ") + in;
      throw CompileError(where + ": the model has no input '" + name + "' (its inputs: " + names + ")");
    }
    Tensor& t = g.tensor(name);
    std::int64_t elements = 1;
    for (auto d : t.shape) elements *= d;
    if (elements != 1)
      throw CompileError(where + ": input '" + name + "' has shape " + shape_string(t.shape) +
                         "; only a one-element input can be fixed to a value");
    t.floats.clear();
    t.ints.clear();
    if (t.elem_type == kFloat || t.elem_type == kFloat16 || t.elem_type == kDouble) {
      t.floats = {static_cast<float>(v)};
    } else {
      if (v != std::floor(v))
        throw CompileError(where + ": input '" + name + "' is " + elem_type_name(t.elem_type) + ", '" + text +
                           "' is not a whole number");
      t.ints = {static_cast<std::int64_t>(v)};
    }
    t.is_constant = true;
    t.shape_known = true;
    g.inputs.erase(input);
    fixed += (fixed.empty() ? "" : ", ") + name + " = " + text;
  }
  return fixed;
}

}  // namespace npu::compiler
