// Hardware configs for Python: the one C++ loader and validator, so a config built from a
// dict or edited by a sweep is checked by the same rules, with the same messages, as a file.
#include <pybind11/stl.h>

#include "apps/python/bindings.h"
#include "hwconfig/config_schema.h"
#include "hwconfig/design_costs.h"
#include "hwconfig/hardware_config.h"

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
    case schema::Kind::Path: return "path";
  }
  return "?";
}

// The schema table as plain dicts: the sweep checks axis keys and value types against it. A
// choice's names (and what each means) come from its name table (hwconfig/config_choices.def).
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
    d["choices"] = f.choices.names("|");
    py::dict descriptions;
    for (const ChoiceEntry& e : f.choices) descriptions[e.name] = std::string(e.description);
    d["choice_descriptions"] = descriptions;
    d["default"] = std::string(f.default_value);
    d["unit"] = std::string(f.unit);
    d["meaning"] = std::string(f.meaning);
    keys.append(d);
  }
  return keys;
}

// What the design costs before it runs (hwconfig/design_costs.h): a sweep evaluates area and
// static-power constraints with it without simulating the point.
py::dict costs_of(const HardwareConfig& c) {
  const DesignCosts d = design_costs(c);
  py::dict out;
  out["model"] = choice_name(d.derived ? EnergyModel::Derived : EnergyModel::Explicit);
  out["tech_nm"] = d.derived ? py::object(py::int_(d.tech_nm)) : py::object(py::none());
  out["tech_table"] = d.tech_table;
  out["area_mm2"] = d.has_area ? py::object(py::float_(d.area_mm2)) : py::object(py::none());
  for (const auto& p : d.parts) {
    out[py::str("area_" + p.name + "_mm2")] = d.has_area ? py::object(py::float_(p.area_mm2)) : py::object(py::none());
    if (d.derived && p.name != "fixed") out[py::str("leakage_" + p.name + "_mw")] = p.leakage_mw;
  }
  out["leakage_mw"] = d.derived ? py::object(py::float_(d.leakage_mw)) : py::object(py::none());
  out["clock_mw"] = d.derived ? py::object(py::float_(d.clock_mw)) : py::object(py::none());
  out["static_power_mw"] = d.has_energy ? py::object(py::float_(d.static_mw())) : py::object(py::none());
  py::dict pj;
  pj["int8_mac"] = d.int8_mac_pj;
  pj["fp16_mac"] = d.fp16_mac_pj;
  pj["sram_read_per_byte"] = d.sram_read_pj_per_byte;
  pj["sram_write_per_byte"] = d.sram_write_pj_per_byte;
  pj["ddr_per_byte"] = d.ddr_pj_per_byte;
  pj["vector_int_per_element"] = d.vector_int_pj_per_element;
  pj["vector_fp_per_element"] = d.vector_fp_pj_per_element;
  pj["dma_per_byte"] = d.dma_pj_per_byte;
  out["pj"] = d.has_energy ? py::object(pj) : py::object(py::none());
  out["notes"] = d.notes;
  return out;
}

}  // namespace

void bind_config(py::module_& m) {
  py::class_<HardwareConfig>(m, "Config", "A validated hardware configuration (configs/README.md)")
      .def_readonly("name", &HardwareConfig::name)
      .def_readonly("source_path", &HardwareConfig::source_path)
      .def_property_readonly("macs", &HardwareConfig::macs)
      .def_property_readonly("peak_tops", &HardwareConfig::peak_tops)
      .def("yaml", &dump_hardware_config, "canonical YAML with every key (parses back equal)")
      .def("costs", &costs_of, "area, leakage and pJ per event of the design (hwconfig/design_costs.h)")
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
