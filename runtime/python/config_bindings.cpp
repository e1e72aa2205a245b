// Hardware configs for Python: the one C++ loader and validator, so a config built from a
// dict or edited by a sweep is checked by the same rules, with the same messages, as a file.
#include <pybind11/stl.h>

#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"
#include "runtime/python/bindings.h"

namespace py = pybind11;

namespace npu::python {
namespace {

const char* kind_name(schema::Kind k) {
  switch (k) {
    case schema::Kind::Integer: return "integer";
    case schema::Kind::Number: return "number";
    case schema::Kind::KiB: return "kib";
    case schema::Kind::MiB: return "mib";
    case schema::Kind::Choice: return "choice";
    case schema::Kind::Text: return "text";
  }
  return "?";
}

// The schema table as plain dicts: the sweep checks axis keys and value types against it.
py::list config_keys() {
  py::list keys;
  for (const auto& f : schema::fields()) {
    py::dict d;
    d["path"] = f.path();
    d["section"] = std::string(f.section);
    d["key"] = std::string(f.key);
    d["kind"] = kind_name(f.kind);
    d["required"] = f.required;
    d["min"] = f.min;
    d["min_exclusive"] = f.min_exclusive;
    d["max"] = f.max;
    d["power_of_two"] = f.power_of_two;
    d["choices"] = std::string(f.choices);
    d["unit"] = std::string(f.unit);
    keys.append(d);
  }
  return keys;
}

}  // namespace

void bind_config(py::module_& m) {
  py::class_<HardwareConfig>(m, "Config", "A validated hardware configuration (configs/README.md)")
      .def_readonly("name", &HardwareConfig::name)
      .def_readonly("source_path", &HardwareConfig::source_path)
      .def_property_readonly("macs", &HardwareConfig::macs)
      .def_property_readonly("peak_tops", &HardwareConfig::peak_tops)
      .def("yaml", &dump_hardware_config, "canonical YAML with every key (parses back equal)")
      .def("__eq__", [](const HardwareConfig& a, const HardwareConfig& b) { return a == b; })
      .def("__repr__", [](const HardwareConfig& c) {
        return "<npusim.Config " + c.name + ": " + std::to_string(c.mac_array.rows) + "x" +
               std::to_string(c.mac_array.cols) + ", " + std::to_string(c.sram.capacity_bytes / 1024) +
               " KiB SRAM>";
      })
      // Pickled as canonical YAML, so configs travel to Dask workers.
      .def(py::pickle(
          [](const HardwareConfig& c) { return py::make_tuple(dump_hardware_config(c), c.source_path); },
          [](const py::tuple& t) {
            auto c = parse_hardware_config(t[0].cast<std::string>(), t[1].cast<std::string>());
            return c;
          }));

  m.def("load_config_file", &load_hardware_config, py::arg("path"), py::call_guard<py::gil_scoped_release>());
  m.def("parse_config", &parse_hardware_config, py::arg("yaml_text"), py::arg("origin"),
        py::call_guard<py::gil_scoped_release>());
  m.def("config_keys", &config_keys);
}

}  // namespace npu::python
